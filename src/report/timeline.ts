// `probe-lint timeline` output: per container, when the kubelet acts on its probes.
import type { TimelineWindow } from '../model/timeline.js';
import { INVALID_PROBE, STARTUP_GATES, windowSentence } from './timeline-words.js';
import { visible } from './visible.js';

export interface ContainerTimeline {
  file: string | undefined;
  resource: string;
  container: string;
  windows: TimelineWindow[];
  /** Probes the lint calls invalid (an error on the probe): never drawn, said so with the lint's words. */
  invalid?: { probe: TimelineWindow['probe']; rule: string; reason: string }[];
}

/** `{"containers":[{"file","resource","container","windows":[{"probe","action","case","fromSeconds","toSeconds"}]}]}` */
export function formatTimelineJson(timelines: readonly ContainerTimeline[]): string {
  const containers = timelines.map((timeline) => ({
    file: timeline.file ?? null,
    resource: timeline.resource,
    container: timeline.container,
    windows: timeline.windows.map((window) => ({
      probe: window.probe,
      action: window.action,
      case: window.case,
      fromSeconds: window.fromSeconds,
      toSeconds: window.toSeconds,
    })),
    ...(timeline.invalid === undefined ? {} : { invalid: timeline.invalid }),
  }));
  return `${JSON.stringify({ containers }, null, 2)}\n`;
}

/** One block per container, one line per window, in words. */
export function formatTimelineText(timelines: readonly ContainerTimeline[]): string {
  const blocks = timelines.map((timeline) => {
    const head = `${visible(timeline.file ?? timeline.resource)}  ${visible(timeline.resource)}, container "${visible(timeline.container)}"`;
    const invalid = (timeline.invalid ?? []).map((probe) => `  ${probe.probe.padEnd(15)} ${INVALID_PROBE}: ${visible(probe.reason)} [${probe.rule}]`);
    if (timeline.windows.length === 0 && invalid.length === 0)
      return `${head}\n  no probes: the kubelet never restarts it for hanging, and it is ready as soon as it starts\n`;
    const lines = [...invalid, ...timeline.windows.map((window) => `  ${window.probe.padEnd(15)} ${windowSentence(window)}`)];
    const gated = timeline.windows.some((window) => window.probe === 'startupProbe') ? [`  (${STARTUP_GATES})`] : [];
    return `${head}\n${[...lines, ...gated].join('\n')}\n`;
  });
  return blocks.join('\n') || 'no containers found\n';
}
