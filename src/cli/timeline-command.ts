// `probe-lint timeline`: for each container of the inputs (manifests, charts, kustomizations), the
// windows in which the kubelet acts on its probes, from the same timing model as every message.
import { findPodSites } from '../model/pod-site.js';
import { describeResource, identityOf } from '../model/resource.js';
import { timelineOf } from '../model/timeline.js';
import type { TimelineFormat } from '../report/format-names.js';
import { formatTimelineJson, formatTimelineText, type ContainerTimeline } from '../report/timeline.js';
import { formatTimelineMarkdown } from '../report/timeline-markdown.js';
import { formatTimelineSvg } from '../report/timeline-svg.js';
import { visible } from '../report/visible.js';
import { lintDocumentsOf } from '../source/documents.js';
import type { RenderedOrigin } from '../source/rendered.js';
import { readInputs } from '../source/read-inputs.js';
import { SourceFile } from '../source/source-file.js';
import type { TimelineArguments } from './arguments.js';
import type { CommandIo } from './context.js';

const TIMELINE_FORMATTERS: Record<TimelineFormat, (timelines: readonly ContainerTimeline[]) => string> = {
  text: formatTimelineText,
  json: formatTimelineJson,
  svg: formatTimelineSvg,
  markdown: formatTimelineMarkdown,
};

export async function runTimeline(args: TimelineArguments, io: CommandIo): Promise<number> {
  const { files, problems, notices } = await readInputs(args.paths, { readStdin: io.readStdin, env: io.env, render: args.render });
  for (const notice of notices) io.stderr(`probe-lint: ${visible(notice)}\n`);
  let failed = problems.length > 0;
  for (const problem of problems) io.stderr(`probe-lint: ${visible(problem.path)}: ${visible(problem.message)}\n`);
  const timelines: ContainerTimeline[] = [];
  for (const file of files) {
    const source = new SourceFile(file.path, file.text);
    if (source.error) {
      io.stderr(`probe-lint: ${visible(file.path)}:${source.error.line}:${source.error.column}: invalid YAML: ${visible(source.error.reason)}\n`);
      failed = true;
    }
    timelines.push(...containerTimelines(source, file.rendered, args.container));
  }
  if (timelines.length === 0 && args.container !== undefined) {
    io.stderr(`probe-lint: no container named "${visible(args.container)}" in the input\n`);
    return 2;
  }
  io.stdout(TIMELINE_FORMATTERS[args.format](timelines));
  return failed ? 2 : 0;
}

/** The timeline of every probed container of one file (only `container`'s, when given). */
export function containerTimelines(source: SourceFile, rendered: RenderedOrigin | undefined, container?: string): ContainerTimeline[] {
  const timelines: ContainerTimeline[] = [];
  for (const document of lintDocumentsOf(source, rendered)) {
    for (const resource of document.resources) {
      for (const site of findPodSites(resource)) {
        for (const candidate of site.containers) {
          // Plain init and ephemeral containers are never probed.
          if (candidate.role !== 'container' && candidate.role !== 'sidecar') continue;
          if (container !== undefined && candidate.name !== container) continue;
          timelines.push({
            file: resource.origin.file,
            resource: describeResource(identityOf(resource.object)),
            container: candidate.name,
            windows: timelineOf(candidate),
          });
        }
      }
    }
  }
  return timelines;
}
