// One finding of the HTML report: an <article> whose id is the finding's fingerprint (the one JSON,
// SARIF and GitLab give it), holding its severity, rule (linked to its docs), place, message, the
// source lines around it with its line marked, the fix, and what audit measured.
import type { PatchOperation } from '../engine/rule.js';
import { ruleDocsUrl } from '../engine/rule-docs.js';
import { renderedNote, whereText, type LocatedFinding } from './located.js';
import { htmlElement, htmlLines, htmlLink, htmlText } from './html-text.js';

/** Lines shown before and after a finding's own (a thousand findings stay under 2 MB). */
const CONTEXT_LINES = 1;
/** A source line longer than this is cut (a minified manifest would otherwise fill the page). */
const MAX_LINE_CHARACTERS = 300;

export interface FindingSource {
  /** The file's lines, or undefined when it cannot be read. */
  lines(file: string): readonly string[] | undefined;
  /** A link to the finding's line where the CI says where the repository is. */
  link(file: string, line: number | undefined): string | undefined;
}

export function findingArticle(finding: LocatedFinding, id: string, source: FindingSource): string {
  const where = whereText(finding);
  const link = finding.file === undefined ? undefined : source.link(finding.file, finding.line);
  const header = [
    htmlElement('span', { class: 'severity' }, htmlText(finding.severity)),
    htmlLink(ruleDocsUrl(finding.rule), htmlText(finding.rule), { class: 'rule' }),
    htmlLink(`#${id}`, htmlText(where), { class: 'place' }),
    link === undefined ? '' : htmlLink(link, 'source', { class: 'source-link' }),
    finding.container === undefined ? '' : htmlElement('span', { class: 'container' }, htmlText(`container "${finding.container}"`)),
  ].join(' ');
  const parts = [
    htmlElement('header', {}, header),
    htmlElement('p', { class: 'message' }, htmlText(`${finding.message}${renderedNote(finding)}`)),
    sourceExcerpt(finding, source),
    fixDetails(finding),
    causesLine(finding),
    evidenceDetails(finding),
  ];
  return htmlElement(
    'article',
    {
      class: 'finding',
      id,
      'data-severity': finding.severity,
      'data-rule': finding.rule,
      'data-namespace': finding.identity.namespace,
      'data-line': finding.line,
    },
    parts.filter((part) => part !== '').join('\n'),
  );
}

/** The finding's line and two either side, its own marked; nothing when the file or line is unknown. */
function sourceExcerpt(finding: LocatedFinding, source: FindingSource): string {
  if (finding.file === undefined || finding.line === undefined) return '';
  const lines = source.lines(finding.file);
  if (lines === undefined || finding.line > lines.length) return '';
  const first = Math.max(1, finding.line - CONTEXT_LINES);
  const last = Math.min(lines.length, finding.line + CONTEXT_LINES);
  // Lean markup: a report of a thousand findings quotes five thousand lines.
  const shown: string[] = [];
  for (let number = first; number <= last; number++) {
    const text = lines[number - 1]!;
    const cut = text.length > MAX_LINE_CHARACTERS ? `${text.slice(0, MAX_LINE_CHARACTERS)}…` : text;
    const numbered = `<span class="number">${number}</span>${htmlText(cut)}`;
    shown.push(number === finding.line ? htmlElement('mark', { class: 'source-line marked', 'data-line': number }, numbered) : numbered);
  }
  return htmlElement('pre', { class: 'source', tabindex: 0 }, shown.join('\n'));
}

/** The fix as the operations --fix applies, one per line: + added, ~ replaced, - removed. */
function fixDetails(finding: LocatedFinding): string {
  if (finding.fix === undefined || finding.fix.length === 0) return '';
  const kind = finding.fixKind === 'suggestion' ? 'suggested change (probe-lint --fix --fix-type suggestion)' : 'fix (probe-lint --fix)';
  const body = finding.fix.map(patchLine).join('\n');
  return htmlElement(
    'details',
    { class: 'fix', open: true },
    `${htmlElement('summary', {}, htmlText(kind))}${htmlElement('pre', { class: 'patch', tabindex: 0 }, htmlLines(body))}`,
  );
}

function patchLine(operation: PatchOperation): string {
  if (operation.op === 'remove') return `- ${operation.path}`;
  const mark = operation.op === 'add' ? '+' : operation.op === 'replace' ? '~' : '=';
  const value = JSON.stringify(operation.value, null, 2) ?? 'null';
  return `${mark} ${operation.path}: ${value.replace(/\n/g, '\n  ')}`;
}

function causesLine(finding: LocatedFinding): string {
  if (finding.causes === undefined || finding.causes.length === 0) return '';
  const links = finding.causes.map((cause) => htmlLink(ruleDocsUrl(cause.rule), htmlText(cause.rule)));
  return htmlElement('p', { class: 'causes' }, `Likely causes in the probe settings: ${links.join(', ')}`);
}

/** What audit measured (events, probe metrics), as its JSON. */
function evidenceDetails(finding: LocatedFinding): string {
  if (finding.evidence === undefined) return '';
  return htmlElement(
    'details',
    { class: 'evidence' },
    `${htmlElement('summary', {}, 'What the cluster showed')}${htmlElement('pre', { class: 'evidence', tabindex: 0 }, htmlLines(JSON.stringify(finding.evidence, null, 2)))}`,
  );
}
