// `probe-lint timeline --format markdown`: per container, a table of the windows and a Mermaid gantt
// chart of them, which GitHub renders on a job summary page ($GITHUB_STEP_SUMMARY) and in comments.
import type { TimelineWindow } from '../model/timeline.js';
import { windowText } from '../model/timing.js';
import { code, tableCell } from './markdown-text.js';
import type { ContainerTimeline } from './timeline.js';
import { INVALID_PROBE, STARTUP_GATES, TIMELINE_ACTION, TIMELINE_CASE, TIMELINE_FROM } from './timeline-words.js';

const PROBES: readonly TimelineWindow['probe'][] = ['startupProbe', 'livenessProbe', 'readinessProbe'];
const LONGEST_CHARTED_SECONDS = 366 * 24 * 3600;

export function formatTimelineMarkdown(timelines: readonly ContainerTimeline[]): string {
  const lines = ['## probe-lint timeline', ''];
  if (timelines.length === 0) lines.push('No containers found.', '');
  for (const timeline of timelines) lines.push(...containerTimelineMarkdown(timeline, 3), '');
  return `${lines.join('\n')}\n`;
}

/** One container's table and chart under a heading of `level`; the lint report's markdown uses it per timing finding. */
export function containerTimelineMarkdown(timeline: ContainerTimeline, level: number): string[] {
  const lines = [`${'#'.repeat(level)} ${code(timeline.resource)}, container ${code(timeline.container)}`, ''];
  if (timeline.file !== undefined) lines.push(`In ${code(timeline.file)}.`, '');
  for (const probe of timeline.invalid ?? []) lines.push(`${code(probe.probe)}: ${INVALID_PROBE}: ${tableCell(probe.reason)} (${code(probe.rule)}).`, '');
  if (timeline.windows.length === 0) {
    if ((timeline.invalid ?? []).length > 0) return lines.slice(0, -1);
    return [...lines, 'No probes: the kubelet never restarts it for hanging, and it is ready as soon as it starts.'];
  }
  lines.push('| probe | the kubelet | window | counted from |', '|---|---|---:|---|');
  for (const window of timeline.windows) {
    const when = TIMELINE_CASE[window.case];
    lines.push(
      `| ${code(window.probe)} | ${tableCell(`${TIMELINE_ACTION[window.action]}${when ? ` ${when}` : ''}`)} | ${windowText(window)} | ${TIMELINE_FROM[window.from].replace(/^after /, '')} |`,
    );
  }
  if (timeline.windows.some((window) => window.probe === 'startupProbe')) lines.push('', `${STARTUP_GATES[0]!.toUpperCase()}${STARTUP_GATES.slice(1)}.`);
  // The API allows windows of thousands of years (int32 periods times int32 thresholds): past a year the chart would show nothing readable.
  if (timeline.windows.some((window) => window.toSeconds > LONGEST_CHARTED_SECONDS)) return [...lines, '', 'No chart: a window is longer than a year.'];
  lines.push(
    '',
    '```mermaid',
    'gantt',
    `  title ${mermaidText(`${timeline.resource} container ${timeline.container}`)}`,
    '  dateFormat YYYY-MM-DD HH:mm:ss',
    '  axisFormat %H:%M:%S',
  );
  let task = 0;
  for (const probe of PROBES) {
    const windows = timeline.windows.filter((window) => window.probe === probe);
    if (windows.length === 0) continue;
    lines.push(`  section ${probe}`);
    for (const window of windows) {
      task++;
      const when = window.case === 'fails-fast' ? 'fails at once' : window.case === 'hangs' ? 'hangs' : 'recovers';
      const what = window.action === 'ready' ? 'ready again' : window.action === 'unready' ? 'unready' : window.action.endsWith('kill') ? 'kill' : 'restart';
      // An id first: with two values Mermaid reads the first as an id, not the start.
      lines.push(`  ${what} - ${when} ${windowText(window)} : w${task}, ${clock(window.fromSeconds)}, ${clock(window.toSeconds)}`);
    }
  }
  lines.push('```');
  return lines;
}

/** Seconds as a time on the first day of 1970 (UTC): Mermaid's gantt axis then reads hours:minutes:seconds from zero. */
function clock(seconds: number): string {
  return new Date(Math.round(seconds * 1000))
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '');
}

/** Mermaid has its own syntax (`:` ends a task name, `#` and `;` are special): only plain characters pass. */
function mermaidText(text: string): string {
  return text.replace(/[^A-Za-z0-9 ._/()-]/g, ' ').slice(0, 200);
}
