// One self-contained HTML page (`-f html`): the summary first, then every workload with its findings
// (each an element whose id is its fingerprint), the container's timeline drawn inline, and filters
// that a script adds. Nothing is fetched: the page's style and script are inline and allowed by
// their hashes alone (html-assets.ts), and every value from the inputs goes through the encoder
// (html-text.ts). With scripts off the filters stay hidden and everything is shown.
import type { Severity } from '../engine/rule.js';
import { ruleDocsUrl } from '../engine/rule-docs.js';
import { describeResource } from '../model/resource.js';
import { Fingerprints } from './fingerprint.js';
import { keyOfText } from './finding-key.js';
import { timelinesOfFindings } from './finding-timelines.js';
import { PAGE_SCRIPT, PAGE_STYLE, contentSecurityPolicy } from './html-assets.js';
import { findingArticle, type FindingSource } from './html-finding.js';
import { htmlElement, htmlLink, htmlText } from './html-text.js';
import { compareText, inputErrorWhere, scopeText, type LocatedFinding, type ReportInput } from './located.js';
import { TIMELINE_SVG_STYLE, formatTimelineSvg } from './timeline-svg.js';

const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];
/** Timeline pictures drawn in one page; past this the page says how to draw the rest. */
export const MAX_TIMELINES = 25;

const STYLE = `${PAGE_STYLE}${TIMELINE_SVG_STYLE}`;

interface Workload {
  id: string;
  name: string;
  file: string | undefined;
  findings: { finding: LocatedFinding; id: string }[];
}

export function formatHtml(input: ReportInput): string {
  const fingerprints = new Fingerprints();
  // Fingerprinted in the JSON report's order (findings, then the baseline's), so each id is the JSON fingerprint.
  const findings = input.findings.map((finding) => ({ finding, id: fingerprints.of(finding) }));
  const baselined = (input.baseline?.baselined ?? []).map((finding) => ({ finding, id: fingerprints.of(finding) }));
  const source = findingSource(input);
  const workloads = workloadsOf(findings);
  const timelines = { drawn: 0, left: 0 };
  const sections = workloads.map((workload) => workloadSection(workload, input, source, timelines));
  const body = [
    htmlElement('h1', {}, 'probe-lint report'),
    summarySection(input),
    inputErrorsSection(input),
    filtersForm(findings.map((entry) => entry.finding)),
    htmlElement('main', { id: 'workloads' }, sections.join('\n')),
    timelines.left > 0
      ? htmlElement(
          'p',
          { class: 'muted', id: 'timelines-left' },
          htmlText(
            `Timelines are drawn for the first ${MAX_TIMELINES} containers; ${timelines.left} more are not drawn here: probe-lint timeline FILE draws any of them.`,
          ),
        )
      : '',
    baselinedSection(input, baselined, source),
    suppressedSection(input),
    htmlElement('footer', { class: 'muted' }, htmlText(`probe-lint ${input.toolVersion}, ${input.generatedAt.toISOString()}`)),
  ];
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy([STYLE], [PAGE_SCRIPT])}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${htmlText(`probe-lint: ${problemsText(input)}`)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    ...body.filter((part) => part !== ''),
    `<script>${PAGE_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function problemsText(input: ReportInput): string {
  const { summary } = input;
  return `${summary.errors} ${plural(summary.errors, 'error')}, ${summary.warnings} ${plural(summary.warnings, 'warning')}, ${summary.infos} ${plural(summary.infos, 'info')}`;
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}

/** The file's lines as the run read them, split once per file. */
function findingSource(input: ReportInput): FindingSource {
  const split = new Map<string, readonly string[] | undefined>();
  return {
    lines(file) {
      if (!split.has(file)) split.set(file, input.sourceText?.(file)?.split(/\r?\n/));
      return split.get(file);
    },
    link: (file, line) => input.sourceLink?.(file, line),
  };
}

/** Findings by object and file, in report order. */
function workloadsOf(findings: readonly { finding: LocatedFinding; id: string }[]): Workload[] {
  const byKey = new Map<string, Workload>();
  for (const entry of findings) {
    const name = describeResource(entry.finding.identity);
    const key = JSON.stringify([name, entry.finding.file ?? null]);
    let workload = byKey.get(key);
    if (workload === undefined) {
      workload = { id: `w-${keyOfText(key).slice(0, 16)}`, name, file: entry.finding.file, findings: [] };
      byKey.set(key, workload);
    }
    workload.findings.push(entry);
  }
  return [...byKey.values()];
}

function workloadSection(workload: Workload, input: ReportInput, source: FindingSource, timelines: { drawn: number; left: number }): string {
  const worst = SEVERITIES.find((severity) => workload.findings.some((entry) => entry.finding.severity === severity)) ?? 'info';
  const heading = htmlElement('h2', {}, htmlLink(`#${workload.id}`, htmlText(workload.name)));
  const where = workload.file === undefined ? '' : htmlElement('p', { class: 'where' }, htmlText(workload.file));
  const articles = workload.findings.map((entry) => findingArticle(entry.finding, entry.id, source));
  const pictures = timelinesOfFindings(
    workload.findings.map((entry) => entry.finding),
    input.rules,
  ).flatMap((timeline) => {
    if (timelines.drawn >= MAX_TIMELINES) {
      timelines.left++;
      return [];
    }
    const id = `t${timelines.drawn++}`;
    const svg = formatTimelineSvg([timeline], { id, style: false });
    return [
      htmlElement(
        'details',
        { class: 'timeline' },
        `${htmlElement('summary', {}, htmlText(`When the kubelet acts on container "${timeline.container}"`))}${svg}`,
      ),
    ];
  });
  return htmlElement(
    'section',
    { class: 'workload', id: workload.id, 'data-worst': worst, 'data-name': workload.name },
    [heading, where, ...articles, ...pictures].filter((part) => part !== '').join('\n'),
  );
}

function summarySection(input: ReportInput): string {
  const { summary } = input;
  const counts = new Map<string, Record<Severity, number>>();
  for (const finding of input.findings) {
    const rule = counts.get(finding.rule) ?? counts.set(finding.rule, { error: 0, warning: 0, info: 0 }).get(finding.rule)!;
    rule[finding.severity]++;
  }
  const facts: [string, string][] = [
    ['Found', htmlText(problemsText(input))],
    ...(input.auditScope === undefined
      ? [['Read', htmlText(scopeText(summary, { resource: 'object' }))] as [string, string]]
      : ([
          ['Cluster', htmlText(input.auditScope.cluster)],
          ['Namespaces', htmlText(input.auditScope.namespaces)],
          ['Read', htmlText(`${summary.resources} ${plural(summary.resources, 'object')}, ${summary.containers} ${plural(summary.containers, 'container')}`)],
          ['Runtime evidence', htmlText(input.auditScope.evidence)],
        ] as [string, string][])),
    ['Fails on', htmlText(input.failOn === 'never' ? 'never (--fail-on never)' : `${input.failOn} and above`)],
    ['Rules run', htmlText(String(input.enabledRules.length))],
  ];
  if (input.hidden > 0) facts.push(['Below --min-severity', htmlText(`${input.hidden} not shown`)]);
  if (input.outsideInputs) facts.push(['In files not given', htmlText(`${input.outsideInputs} not shown`)]);
  if (input.changedSince !== undefined) {
    const change = input.changedSince;
    facts.push([
      'Changed since',
      htmlText(
        `${change.ref} (merge base ${change.base.slice(0, 12)}): ${change.files} ${plural(change.files, 'file')}; ${change.outside} findings in other files not shown`,
      ),
    ]);
  }
  if (input.baseline !== undefined)
    facts.push([
      'Baseline',
      htmlText(`${input.baseline.file}: ${input.baseline.baselined.length} findings held, ${input.baseline.fixed.length} entries no longer found`),
    ]);
  for (const notice of input.notices ?? []) facts.push(['Notice', htmlText(notice)]);
  facts.push(['Version', htmlText(`probe-lint ${input.toolVersion}`)], ['Generated', htmlText(input.generatedAt.toISOString())]);
  const list = htmlElement('dl', { class: 'facts' }, facts.map(([term, value]) => `<dt>${htmlText(term)}</dt><dd>${value}</dd>`).join(''));
  const rows = [...counts]
    .sort(([a], [b]) => compareText(a, b))
    .map(
      ([rule, count]) =>
        `<tr><td>${htmlLink(ruleDocsUrl(rule), htmlText(rule))}</td>${SEVERITIES.map((severity) => `<td class="count">${count[severity]}</td>`).join('')}</tr>`,
    );
  const table =
    rows.length === 0
      ? htmlElement('p', {}, 'No findings.')
      : `<table><caption class="muted">Findings by rule</caption><thead><tr><th scope="col">rule</th>${SEVERITIES.map((severity) => `<th scope="col">${severity}s</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
  return htmlElement('section', { id: 'summary', 'aria-label': 'Summary' }, `${list}${table}`);
}

function inputErrorsSection(input: ReportInput): string {
  if (input.inputErrors.length === 0) return '';
  const items = input.inputErrors.map((error) =>
    htmlElement(
      'li',
      { class: error.severity === 'warning' ? 'input-error let-pass' : 'input-error' },
      `${htmlElement('code', {}, htmlText(inputErrorWhere(error)))} ${htmlElement('span', { class: 'kind' }, htmlText(`[${error.kind}]`))} ${htmlText(error.message)}${
        error.severity === 'warning' ? htmlElement('span', { class: 'muted' }, ' (let pass by the config)') : ''
      }`,
    ),
  );
  return htmlElement(
    'section',
    { id: 'input-errors' },
    `<h2>${htmlText(`${input.inputErrors.length} input ${plural(input.inputErrors.length, 'error')}`)}</h2><ul>${items.join('')}</ul>`,
  );
}

/** The filter controls, hidden until the script shows them: with scripts off they would do nothing. */
function filtersForm(findings: readonly LocatedFinding[]): string {
  if (findings.length === 0) return '';
  const rules = [...new Set(findings.map((finding) => finding.rule))].sort(compareText);
  const namespaces = [...new Set(findings.flatMap((finding) => (finding.identity.namespace === undefined ? [] : [finding.identity.namespace])))].sort(
    compareText,
  );
  const select = (name: string, label: string, options: readonly [string, string][]) =>
    htmlElement(
      'label',
      {},
      `${htmlText(label)}${htmlElement('select', { name }, options.map(([value, text]) => htmlElement('option', { value }, htmlText(text))).join(''))}`,
    );
  const controls = [
    select('severity', 'Severity', [['', 'all'], ...SEVERITIES.map((severity): [string, string] => [severity, severity])]),
    select('rule', 'Rule', [['', 'all'], ...rules.map((rule): [string, string] => [rule, rule])]),
    select('namespace', 'Namespace', [['', 'all'], ...namespaces.map((namespace): [string, string] => [namespace, namespace])]),
    htmlElement('label', {}, `Text${htmlElement('input', { type: 'search', name: 'q', placeholder: 'name, message, field' })}`),
    select('sort', 'Order', [
      ['', 'as found'],
      ['severity', 'worst first'],
      ['name', 'by name'],
    ]),
    htmlElement('output', { id: 'shown', 'aria-live': 'polite' }, htmlText(`${findings.length} of ${findings.length} findings shown`)),
  ];
  return htmlElement('form', { id: 'filters', class: 'filters', hidden: true, 'aria-label': 'Filter the findings' }, controls.join(''));
}

function baselinedSection(input: ReportInput, baselined: readonly { finding: LocatedFinding; id: string }[], source: FindingSource): string {
  if (input.baseline === undefined || baselined.length === 0) return '';
  const articles = baselined.map((entry) => findingArticle(entry.finding, entry.id, source));
  return htmlElement(
    'details',
    { id: 'baselined' },
    `${htmlElement('summary', {}, htmlText(`${baselined.length} ${plural(baselined.length, 'finding')} held by the baseline ${input.baseline.file}`))}${articles.join('\n')}`,
  );
}

function suppressedSection(input: ReportInput): string {
  if (!input.showSuppressed || input.suppressed.length === 0) return '';
  const items = input.suppressed.map((finding) =>
    htmlElement(
      'li',
      {},
      `${htmlElement('code', {}, htmlText(finding.rule))} ${htmlText(`${describeResource(finding.identity)}: suppressed by ${finding.suppression.by}: ${finding.suppression.reason}`)}`,
    ),
  );
  return htmlElement(
    'details',
    { id: 'suppressed' },
    `${htmlElement('summary', {}, htmlText(`${input.suppressed.length} suppressed ${plural(input.suppressed.length, 'finding')}`))}<ul>${items.join('')}</ul>`,
  );
}
