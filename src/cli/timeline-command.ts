// `probe-lint timeline`: for each container of the inputs (manifests, charts, kustomizations), the
// windows in which the kubelet acts on its probes, from the same timing model as every message. The
// inputs are read by the lint session, so timeline sees exactly the objects `lint` sees.
import { timelineFormat } from '../report/format-names.js';
import { inputErrorWhere } from '../report/located.js';
import { visible } from '../report/visible.js';
import type { TimelineArguments } from './arguments.js';
import { readCommandInputs, type CommandIo } from './context.js';

export async function runTimeline(args: TimelineArguments, io: CommandIo): Promise<number> {
  const read = await readCommandInputs(args, io);
  if (read === undefined) return 2;
  const { session, inputs, progress } = read;
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
