import type { Severity } from '../engine/rule.js';
import { standaloneMessage, whereText, type LocatedFinding, type ReportInput } from './located.js';

const COLORS: Record<Severity, string> = { error: '\x1b[31m', warning: '\x1b[33m', info: '\x1b[36m' };
const RESET = '\x1b[0m';
const DIM = '\x1b[2m';

/** Grouped by file: `file:line:column  severity  rule  message`, then one summary line. */
export function formatText(input: ReportInput): string {
  const paint = (code: string, text: string) => (input.color ? `${code}${text}${RESET}` : text);
  const lines: string[] = [];
  const groups = new Map<string, string[]>();
  const group = (key: string) => groups.get(key) ?? groups.set(key, []).get(key)!;

  for (const error of input.inputErrors) {
    const where = error.line === undefined ? error.file : `${error.file}:${error.line}:${error.column}`;
    group(error.file).push(`${where}  ${paint(COLORS.error, 'error'.padEnd(7))}  ${'input'.padEnd(24)}  ${error.message}`);
  }
  const line = (finding: LocatedFinding, suffix = '') =>
    `${whereText(finding)}  ${paint(COLORS[finding.severity], finding.severity.padEnd(7))}  ${finding.rule.padEnd(24)}  ${standaloneMessage(finding)}${suffix}`;
  for (const finding of input.findings) group(finding.file ?? finding.identity.kind).push(line(finding));
  if (input.showSuppressed) {
    for (const finding of input.suppressed) {
      group(finding.file ?? finding.identity.kind).push(paint(DIM, `${line(finding)} [suppressed by ${finding.suppression.by}: ${finding.suppression.reason}]`));
    }
  }
  for (const [file, entries] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(paint('\x1b[4m', file), ...entries.map((entry) => `  ${entry}`), '');
  }
  lines.push(summaryLine(input, paint));
  return lines.join('\n') + '\n';
}

function summaryLine(input: ReportInput, paint: (code: string, text: string) => string): string {
  const { summary } = input;
  const problems = summary.errors + summary.warnings + summary.infos;
  const scope = `${summary.files} ${plural(summary.files, 'file')}, ${summary.resources} ${plural(summary.resources, 'resource')}, ${summary.containers} ${plural(summary.containers, 'container')}`;
  const suppressed = input.suppressed.length ? `; ${input.suppressed.length} suppressed` : '';
  const inputErrors = input.inputErrors.length ? `; ${input.inputErrors.length} ${plural(input.inputErrors.length, 'input error')}` : '';
  if (problems === 0) return `${paint('\x1b[32m', '✔')} no problems in ${scope}${suppressed}${inputErrors}`;
  const parts = `${summary.errors} ${plural(summary.errors, 'error')}, ${summary.warnings} ${plural(summary.warnings, 'warning')}, ${summary.infos} ${plural(summary.infos, 'info')}`;
  const mark = summary.errors ? paint(COLORS.error, '✖') : summary.warnings ? paint(COLORS.warning, '⚠') : paint(COLORS.info, 'ℹ');
  return `${mark} ${problems} ${plural(problems, 'problem')} (${parts}) in ${scope}${suppressed}${inputErrors}`;
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}
