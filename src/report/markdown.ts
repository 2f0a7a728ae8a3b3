// Markdown for a CI job's summary page ($GITHUB_STEP_SUMMARY): counts by rule and severity, then the
// findings grouped by file, each linked to its line where the CI says where the repository is.
import type { Severity } from '../engine/rule.js';
import { renderedNote, scopeText, type LocatedFinding, type ReportInput } from './located.js';
import { standaloneMessage } from './finding-text.js';
import { timelinesOfFindings } from './finding-timelines.js';
import { code, htmlText, tableCell as cell } from './markdown-text.js';
import { containerTimelineMarkdown } from './timeline-markdown.js';

const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];
const MARK: Record<Severity, string> = { error: '🔴 error', warning: '🟠 warning', info: '🔵 info' };

export function formatMarkdown(input: ReportInput): string {
  const { summary } = input;
  const lines: string[] = ['## probe-lint', ''];
  const problems = summary.errors + summary.warnings + summary.infos;
  lines.push(
    `${count(problems, 'problem')} (${count(summary.errors, 'error')}, ${count(summary.warnings, 'warning')}, ${count(summary.infos, 'info')}) in ${scopeText(summary, { resource: 'object' })}` +
      (input.inputErrors.length > 0 ? `; **${input.inputErrors.length} input ${input.inputErrors.length === 1 ? 'error' : 'errors'}**` : ''),
    '',
  );
  if (input.inputErrors.length > 0) {
    lines.push('### Input errors', '');
    for (const error of input.inputErrors)
      lines.push(
        `- ${code(error.line === undefined ? error.file : `${error.file}:${error.line}`)} ${error.severity === 'warning' ? '(let pass by the config) ' : ''}${cell(error.message)}`,
      );
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
      lines.push(...timelinesOf(findings, input));
    }
  }
  return `${lines.join('\n')}\n`;
}

/** For the file's timing findings, each container's timeline once, folded so that the summary stays short. */
function timelinesOf(findings: readonly LocatedFinding[], input: ReportInput): string[] {
  return timelinesOfFindings(findings, input.rules).flatMap((timeline) => [
    `<details><summary>When the kubelet acts on ${htmlText(`${timeline.resource}, container ${timeline.container}`)}</summary>`,
    '',
    ...containerTimelineMarkdown(timeline, 4),
    '',
    '</details>',
    '',
  ]);
}

function count(value: number, word: string): string {
  return `${value} ${value === 1 ? word : `${word}s`}`;
}
