// `probe-lint timeline --format svg`: the windows of each container as a chart. One group of rows per
// probe, one row per case (a check that fails at once, one that hangs, recovery), each window a bar
// on a time axis in seconds with its numbers written beside it. Text stays text (searchable, read by
// screen readers, with a title and description); colours come from CSS variables with a dark
// variant, so the picture reads in light and dark themes (GitHub shows SVG in either).
import type { TimelineWindow } from '../model/timeline.js';
import { windowText } from '../model/timing.js';
import type { ContainerTimeline } from './timeline.js';
import { INVALID_PROBE, STARTUP_GATES, TIMELINE_FROM } from './timeline-words.js';
import { fittedSvgText, textWidth, wrapText } from './svg-text-fit.js';
import { visible } from './visible.js';
import { xmlAttribute } from './xml.js';

const WIDTH = 860;
const PLOT_LEFT = 340;
const PLOT_RIGHT = WIDTH - 90; // room for the last bar's numbers
const ROW = 24;
const NOTE_LINE = 16;
const BAR = 14;
const PROBES: readonly TimelineWindow['probe'][] = ['startupProbe', 'livenessProbe', 'readinessProbe'];
// Short enough for the label column; the full sentence is each bar's tooltip and the description.
const CASE: Record<TimelineWindow['case'], string> = {
  'fails-fast': 'check fails at once',
  hangs: 'check hangs to its timeout',
  recovers: 'app answers again',
};
const ORIGIN: Record<TimelineWindow['from'], string> = { failure: 'the failure', recovery: 'the recovery', 'container-start': 'the container start' };
const ACTION: Record<TimelineWindow['action'], string> = {
  restart: 'restarted',
  unready: 'out of its Services',
  ready: 'back in its Services',
  'startup-restart': 'given up, restarted',
  kill: 'killed, not restarted',
  'startup-kill': 'given up, killed',
};

/** The x of `seconds` on a block's axis; exported for the browser test, which checks the picture against it. */
export function axisX(seconds: number, axisMax: number): number {
  return PLOT_LEFT + (seconds / axisMax) * (PLOT_RIGHT - PLOT_LEFT);
}

/** A round axis end at or above the latest window, and a tick step that gives 4-8 ticks. */
export function axisOf(latest: number): { max: number; step: number } {
  const steps = [1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600];
  const target = Math.max(latest, 1);
  const step = steps.find((candidate) => target / candidate <= 8) ?? Math.ceil(target / 8 / 3600) * 3600;
  return { max: Math.ceil(target / step) * step, step };
}

export const TIMELINE_SVG_STYLE = `
svg { --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --grid: #d1d9e0; --restart: #cf222e; --unready: #9a6700; --ready: #1a7f37; }
@media (prefers-color-scheme: dark) {
  svg { --bg: #0d1117; --fg: #f0f6fc; --muted: #9198a1; --grid: #3d444d; --restart: #ff7b72; --unready: #d29922; --ready: #3fb950; }
}
.background { fill: var(--bg); }
text { fill: var(--fg); font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; font-size: 12px; }
.title { font-size: 14px; font-weight: 600; }
.probe { font-weight: 600; }
.muted, .tick { fill: var(--muted); }
.grid { stroke: var(--grid); stroke-width: 1; }
.restart, .startup-restart, .kill, .startup-kill { fill: var(--restart); }
.unready { fill: var(--unready); }
.ready { fill: var(--ready); }
.hangs { fill-opacity: 0.6; }
`;

/**
 * `id` names the title and description (unique within a page that holds several pictures); with
 * `style: false` the picture leaves its style to the page, which holds TIMELINE_SVG_STYLE once.
 */
export function formatTimelineSvg(timelines: readonly ContainerTimeline[], options: { id?: string; style?: boolean } = {}): string {
  const id = options.id ?? 'probe-lint';
  const body: string[] = [];
  const summary: string[] = [];
  let y = 0;
  for (const timeline of timelines) {
    const heading = `${timeline.resource}, container "${timeline.container}"`;
    y += 28;
    // The file takes at most half the row (its end kept), the heading the rest; each shortened keeps its whole text as a tooltip.
    const file = timeline.file === undefined ? undefined : fittedSvgText(visible(timeline.file), (WIDTH - 32) / 2, 12, { keep: 'end' });
    const headingRoom = WIDTH - 32 - (file === undefined ? 0 : textWidth(file.shown, 12) + 24);
    body.push(`<text class="title" x="16" y="${y}">${fittedSvgText(visible(heading), headingRoom, 14, { bold: true }).markup}</text>`);
    if (file !== undefined) body.push(`<text class="muted" x="${WIDTH - 16}" y="${y}" text-anchor="end">${file.markup}</text>`);
    summary.push(`${heading}:`);
    for (const probe of timeline.invalid ?? []) {
      const sentence = `${probe.probe} ${INVALID_PROBE}: ${probe.reason} (${probe.rule})`;
      y = note(body, 16, y + 22, sentence);
      summary.push(`${sentence}.`);
    }
    if (timeline.windows.length === 0 && (timeline.invalid ?? []).length > 0) {
      y += 12;
      continue;
    }
    if (timeline.windows.length === 0) {
      y = note(body, 16, y + 22, 'no probes: never restarted for hanging, ready as soon as it starts');
      summary.push('no probes.');
      y += 12;
      continue;
    }
    const axis = axisOf(Math.max(...timeline.windows.map((window) => window.toSeconds)));
    const top = y + 10;
    const rows: string[] = [];
    for (const probe of PROBES) {
      const windows = timeline.windows.filter((window) => window.probe === probe);
      if (windows.length === 0) continue;
      y += ROW;
      rows.push(
        `<text x="16" y="${y + 4}"><tspan class="probe">${probe}</tspan><tspan class="muted">  seconds from ${[...new Set(windows.map((window) => ORIGIN[window.from]))].join(' or ')}</tspan></text>`,
      );
      for (const window of windows) {
        y += ROW;
        const label = `${CASE[window.case]}: ${ACTION[window.action]}`;
        const from = axisX(window.fromSeconds, axis.max);
        // A window of no width still shows: a bar at least 2 px wide.
        const width = Math.max(2, axisX(window.toSeconds, axis.max) - from);
        const numbers = `${windowText(window)} ${TIMELINE_FROM[window.from]}`;
        rows.push(
          `<text x="28" y="${y + 4}">${xml(label)}</text>`,
          `<rect class="${window.action} ${window.case}" x="${round(from)}" y="${y - BAR / 2}" width="${round(width)}" height="${BAR}" rx="2">` +
            `<title>${xml(`${probe} ${label}: ${numbers}`)}</title></rect>`,
          `<text class="window" x="${round(from + width + 6)}" y="${y + 4}">${xml(windowText(window))}</text>`,
        );
        summary.push(`${probe} ${label}: ${numbers}.`);
      }
    }
    if (timeline.windows.some((window) => window.probe === 'startupProbe')) {
      y = note(rows, 28, y + ROW + 4, STARTUP_GATES) - 4;
    }
    const bottom = y + ROW / 2;
    const ticks: string[] = [];
    for (let seconds = 0; seconds <= axis.max; seconds += axis.step) {
      const x = round(axisX(seconds, axis.max));
      ticks.push(
        `<line class="grid" x1="${x}" y1="${top}" x2="${x}" y2="${bottom}"/>`,
        `<text class="tick" x="${x}" y="${bottom + 16}" text-anchor="middle">${seconds} s</text>`,
      );
    }
    body.push(...ticks, ...rows);
    y = bottom + 30;
  }
  const height = Math.max(y, 40);
  const description = summary.join(' ') || 'no containers found';
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="${id}-title ${id}-desc">`,
    `<title id="${id}-title">When the kubelet acts on the probes (probe-lint timeline)</title>`,
    `<desc id="${id}-desc">${xml(description)}</desc>`,
    ...(options.style === false ? [] : [`<style>${TIMELINE_SVG_STYLE}</style>`]),
    `<rect class="background" width="${WIDTH}" height="${height}"/>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/** Text for an XML element or attribute: control characters made visible, then encoded by the one XML encoder. */
/** A muted note from `x` on line `y`, wrapped to the picture's width; the y of its last line. */
function note(into: string[], x: number, y: number, text: string): number {
  const lines = wrapText(visible(text), WIDTH - 16 - x, 12);
  lines.forEach((line, index) => into.push(`<text class="muted" x="${x}" y="${y + index * NOTE_LINE}">${xmlAttribute(line)}</text>`));
  return y + (lines.length - 1) * NOTE_LINE;
}

function xml(text: string): string {
  return xmlAttribute(visible(text));
}
