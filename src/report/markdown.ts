// Markdown for a CI job's summary page ($GITHUB_STEP_SUMMARY): counts by rule and severity, then the
// findings grouped by file, each linked to its line where the CI says where the repository is.
import type { Severity } from '../engine/rule.js';
import { renderedNote, type LocatedFinding, type ReportInput } from './located.js';
import { standaloneMessage } from './finding-text.js';

const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];
const MARK: Record<Severity, string> = { error: '🔴 error', warning: '🟠 warning', info: '🔵 info' };

export function formatMarkdown(input: ReportInput): string {
  const { summary } = input;
  const lines: string[] = ['## probe-lint', ''];
  const problems = summary.errors + summary.warnings + summary.infos;
  lines.push(
    `${count(problems, 'problem')} (${count(summary.errors, 'error')}, ${count(summary.warnings, 'warning')}, ${count(summary.infos, 'info')}) in ${count(summary.files, 'file')}, ${count(summary.resources, 'object')}, ${count(summary.containers, 'container')}` +
      (input.inputErrors.length > 0 ? `; **${input.inputErrors.length} input ${input.inputErrors.length === 1 ? 'error' : 'errors'}**` : ''),
    '',
  );
  if (input.inputErrors.length > 0) {
    lines.push('### Input errors', '');
    for (const error of input.inputErrors)
      lines.push(`- ${code(error.line === undefined ? error.file : `${error.file}:${error.line}`)} ${cell(error.message)}`);
    lines.push('');
  }
  if (input.findings.length > 0) {
    // One pass: counts by rule and severity, and findings by file (linear on huge dumps).
    const counts = new Map<string, Record<Severity, number>>();
    const byFile = new Map<string, LocatedFinding[]>();
    for (const finding of input.findings) {
      const rule = counts.get(finding.rule) ?? counts.set(finding.rule, { error: 0, warning: 0, info: 0 }).get(finding.rule)!;
      rule[finding.severity]++;
      const file = finding.file ?? finding.identity.kind;
      const list = byFile.get(file);
      if (list) list.push(finding);
      else byFile.set(file, [finding]);
    }
    lines.push('| rule | errors | warnings | infos |', '|---|---:|---:|---:|');
    for (const [rule, count] of [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      lines.push(`| ${code(rule)} | ${SEVERITIES.map((severity) => count[severity]).join(' | ')} |`);
    }
    lines.push('');
    for (const [file, findings] of byFile) {
      lines.push(`### ${code(file)}`, '', '| where | severity | rule | message |', '|---|---|---|---|');
      for (const finding of findings) {
        const where = finding.line === undefined ? code(file) : code(`${file}:${finding.line}:${finding.column}`);
        const link = finding.file === undefined ? undefined : input.sourceLink?.(finding.file, finding.line);
        lines.push(
          `| ${link ? `[${where}](${link})` : where} | ${MARK[finding.severity]} | ${code(finding.rule)} | ${cell(`${standaloneMessage(finding)}${renderedNote(finding)}`)} |`,
        );
      }
      lines.push('');
    }
  }
  return `${lines.join('\n')}\n`;
}

function count(value: number, word: string): string {
  return `${value} ${value === 1 ? word : `${word}s`}`;
}

/** Inline code that no backtick in the text can end. */
function code(text: string): string {
  const clean = cell(text).replace(/`/g, "'");
  return `\`${clean}\``;
}

/** A table cell: one line, no pipe that would split it, no HTML. */
function cell(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}
