// `probe-lint timeline`: for each container of the inputs (manifests, charts, kustomizations), the
// windows in which the kubelet acts on its probes, from the same timing model as every message. The
// inputs are read by the lint session, so timeline sees exactly the objects `lint` sees.
import { resolve } from 'node:path';
import { RULES } from '../../rules/index.js';
import { clusterFactsFrom } from '../engine/config.js';
import { LintSession } from '../lint/index.js';
import { timelineFormat } from '../report/format-names.js';
import { inputErrorWhere } from '../report/located.js';
import { visible } from '../report/visible.js';
import type { TimelineArguments } from './arguments.js';
import { commandProgress, loadConfigOrReport, pathExclusion, type CommandIo } from './context.js';

export async function runTimeline(args: TimelineArguments, io: CommandIo): Promise<number> {
  const config = await loadConfigOrReport(args.config, io);
  if (config === undefined) return 2;
  const progress = await commandProgress(io, args.noProgress);
  const session = new LintSession(
    { rules: RULES, config, cluster: clusterFactsFrom(config, undefined) },
    {
      render: args.render,
      exclusion: pathExclusion(config, args.exclude, io.cwd),
      ...(args.root !== undefined ? { root: resolve(io.cwd, args.root) } : {}),
      onlyManifests: args.onlyManifests,
      readStdin: io.readStdin,
      env: io.env,
      ...(progress.listener !== undefined ? { progress: progress.listener } : {}),
    },
  );
  const inputs = await session.read(args.paths);
  for (const notice of inputs.notices) progress.stderr(`probe-lint: ${visible(notice)}\n`);
  const timelines = session.timelines(inputs, args.container);
  progress.end();
  for (const error of inputs.inputErrors) {
    io.stderr(`probe-lint: ${visible(inputErrorWhere(error))}: ${visible(error.message)}\n`);
  }
  if (timelines.length === 0 && args.container !== undefined) {
    io.stderr(`probe-lint: no container named "${visible(args.container)}" in the input\n`);
    return 2;
  }
  io.stdout((await timelineFormat(args.format).load())(timelines));
  return inputs.inputErrors.length > 0 ? 2 : 0;
}
