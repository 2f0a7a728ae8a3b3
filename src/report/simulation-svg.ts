// `probe-lint simulate -f svg`: each workload's outage through the scenario as a picture — the
// scenario's interval, then the service as written and with the what-if's change: where it is down
// for certain (solid), where it may be (pale: the window's two ends), and each kill's window as a
// mark. Text stays text, colours follow the light or dark scheme, as the timeline picture does.
import type { FleetOutcome, SimulatedWorkload } from '../model/fleet.js';
import { describePart } from '../model/fleet-scenario.js';
import { describeResource } from '../model/resource.js';
import { windowText, type SimulationReport } from './simulation.js';
import { fittedSvgText } from './svg-text-fit.js';
import { axisOf } from './timeline-svg.js';
import { visible } from './visible.js';
import { xmlAttribute } from './xml.js';

const WIDTH = 860;
const LEFT = 200;
// Room at the right for the factor ("2.3×", "never back").
const RIGHT = WIDTH - 80;
const ROW = 26;

export const SIMULATION_SVG_STYLE = `
svg { --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --grid: #d1d9e0; --down: #cf222e; --scenario: #9a6700; --kill: #1f2328; }
@media (prefers-color-scheme: dark) {
  svg { --bg: #0d1117; --fg: #f0f6fc; --muted: #9198a1; --grid: #3d444d; --down: #ff7b72; --scenario: #d29922; --kill: #f0f6fc; }
}
.background { fill: var(--bg); }
text { fill: var(--fg); font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; font-size: 12px; }
.title { font-size: 14px; font-weight: 600; }
.muted, .tick { fill: var(--muted); }
.grid { stroke: var(--grid); stroke-width: 1; }
.scenario { fill: var(--scenario); }
.down { fill: var(--down); }
.maybe-down { fill: var(--down); fill-opacity: 0.3; }
.kill { fill: var(--kill); }
`;

export function formatSimulationSvg(report: SimulationReport): string {
  const body: string[] = [];
  const summary: string[] = [];
  let y = 0;
  const scenario = report.parts.map(describePart).join('; ');
  for (const workload of report.workloads) {
    y += 28;
    const name = visible(describeResource(workload.identity));
    body.push(text('title', 16, y, name, WIDTH - 32, 14, true));
    const axis = axisOf(latestOf(workload, report));
    const x = (seconds: number) => round(LEFT + (Math.min(seconds, axis.max) / axis.max) * (RIGHT - LEFT));
    const top = y + 10;
    y += ROW;
    for (const part of report.parts)
      body.push(
        `<rect class="scenario" x="${x(part.start)}" y="${y - 6}" width="${Math.max(2, x(part.start + part.duration) - x(part.start))}" height="12" rx="2"/>`,
      );
    body.push(text('muted', 16, y + 4, 'the scenario', LEFT - 24, 12));
    y += ROW;
    body.push(...serviceRow(workload, 'as written', y, x));
    summary.push(`${name}: ${rowSummary(workload)}`);
    if (workload.whatIf !== null) {
      y += ROW;
      body.push(...serviceRow(workload.whatIf, 'with the change', y, x));
      summary.push(`with ${visible(workload.whatIf.change)}: ${rowSummary(workload.whatIf)}`);
      y += 18;
      body.push(text('muted', LEFT, y + 4, `the change: ${visible(workload.whatIf.change)}`, RIGHT - LEFT, 12));
    }
    const bottom = y + ROW / 2;
    for (let seconds = 0; seconds <= axis.max; seconds += axis.step) {
      body.push(
        `<line class="grid" x1="${x(seconds)}" y1="${top}" x2="${x(seconds)}" y2="${bottom}"/>`,
        `<text class="tick" x="${x(seconds)}" y="${bottom + 16}" text-anchor="middle">${seconds} s</text>`,
      );
    }
    y = bottom + 30;
  }
  if (report.workloads.length > 0) {
    body.push(
      text(
        'muted',
        16,
        y,
        'solid: the service is down for certain · pale: it may be, by when the checks fall · dark marks: when replicas are killed',
        WIDTH - 32,
        12,
      ),
    );
    y += 12;
  }
  if (report.workloads.length === 0) {
    y += 28;
    body.push(text('muted', 16, y, 'the scenario reaches no workload', WIDTH - 32, 12));
    y += 12;
  }
  const height = Math.max(y, 40);
  const description = `${scenario}. ${summary.join(' ')}`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="simulation-title simulation-desc">`,
    `<title id="simulation-title">${xmlAttribute(`What the fleet does: ${visible(scenario)}`)}</title>`,
    `<desc id="simulation-desc">${xmlAttribute(visible(description))}</desc>`,
    `<style>${SIMULATION_SVG_STYLE}</style>`,
    `<rect class="background" width="${WIDTH}" height="${height}"/>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

/** One row: the service down for certain (solid) or maybe (pale), each kill's window, and the factor. */
function serviceRow(outcome: FleetOutcome, label: string, y: number, x: (seconds: number) => number): string[] {
  const row = [text('', 16, y + 4, label, LEFT - 24, 12)];
  const down = outcome.serviceDown;
  if (down !== null) {
    const end = down.to === null ? Number.POSITIVE_INFINITY : down.to.latest;
    row.push(bar('maybe-down', x(down.from.earliest), x(end), y, 14));
    const certainEnd = down.to === null ? end : down.to.earliest;
    if (certainEnd > down.from.latest) row.push(bar('down', x(down.from.latest), x(certainEnd), y, 14));
  }
  for (const kill of outcome.events.filter((event) => event.action === 'kill')) row.push(bar('kill', x(kill.at.earliest), x(kill.at.latest), y + 9, 4));
  const factor = down === null ? 'up' : outcome.amplification === null ? 'never back' : `${outcome.amplification}×`;
  row.push(`<text x="${RIGHT + 8}" y="${y + 4}">${xmlAttribute(factor)}</text>`);
  return row;
}

function bar(kind: string, from: number, to: number, y: number, height: number): string {
  return `<rect class="${kind}" x="${from}" y="${y - height / 2}" width="${Math.max(2, round(to - from))}" height="${height}" rx="1"/>`;
}

function rowSummary(outcome: FleetOutcome): string {
  const down = outcome.serviceDown;
  if (down === null) return 'the service stays up.';
  return `down from ${windowText(down.from)}${down.to === null ? ', never back.' : ` to ${windowText(down.to)}, ${outcome.amplification}× the scenario.`}`;
}

function latestOf(workload: SimulatedWorkload, report: SimulationReport): number {
  const ends = [
    ...report.parts.map((part) => part.start + part.duration),
    ...[workload, workload.whatIf].flatMap((outcome) =>
      outcome?.serviceDown?.to === undefined || outcome.serviceDown.to === null ? [] : [outcome.serviceDown.to.latest],
    ),
  ];
  return Math.max(...ends) * 1.05;
}

/** Text shortened to its room, with the whole as a tooltip when it was. */
function text(kind: string, x: number, y: number, content: string, width: number, size: number, bold = false): string {
  const cls = kind === '' ? '' : ` class="${kind}"`;
  return `<text${cls} x="${x}" y="${y}">${fittedSvgText(content, width, size, { bold }).markup}</text>`;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
