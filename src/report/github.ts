import type { Severity } from '../engine/rule.js';
import { standaloneMessage } from './finding-text.js';
import { renderedNote, type ReportInput } from './located.js';
import { plural } from './text.js';
import { visible } from './visible.js';

const COMMANDS: Record<Severity, string> = { error: 'error', warning: 'warning', info: 'notice' };

/** GitHub Actions workflow commands: one annotation per finding, on the file and line. */
export function formatGithub(input: ReportInput): string {
  const lines: string[] = [];
  for (const error of input.inputErrors) {
    lines.push(
      `::${error.severity ?? 'error'} ${properties({ file: error.file, line: error.line, col: error.column, title: 'probe-lint: input' })}::${escapeData(error.message)}`,
    );
  }
  for (const finding of input.findings) {
    const props = properties({ file: finding.file, line: finding.line, col: finding.column, title: `probe-lint: ${finding.rule}` });
    lines.push(`::${COMMANDS[finding.severity]} ${props}::${escapeData(`${standaloneMessage(finding)}${renderedNote(finding)}`)}`);
  }
  const { summary } = input;
  lines.push(
    `probe-lint: ${count(summary.errors, 'error')}, ${count(summary.warnings, 'warning')}, ${count(summary.infos, 'info')} in ${count(summary.files, 'file')}`,
  );
  return lines.join('\n') + '\n';
}

function count(value: number, word: string): string {
  return `${value} ${plural(value, word)}`;
}

function properties(values: Record<string, string | number | undefined>): string {
  return Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`)
    .join(',');
}

// The escaping GitHub's runner applies (actions/toolkit core/src/command.ts), after every other
// control character is made visible (an escape sequence would still recolour the log).
function escapeData(value: string): string {
  return visible(value).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
