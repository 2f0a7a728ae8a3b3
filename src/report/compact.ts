import { standaloneMessage } from './finding-text.js';
import { renderedNote, whereText, type ReportInput } from './located.js';
import { summaryLine } from './text.js';
import { visible } from './visible.js';

/** One line per problem, `file:line:column: severity [rule] message`, for editors and grep. */
export function formatCompact(input: ReportInput): string {
  const lines: string[] = [];
  for (const error of input.inputErrors) {
    const where = error.line === undefined ? error.file : `${error.file}:${error.line}:${error.column ?? 1}`;
    lines.push(`${visible(where)}: error [input] ${visible(error.message)}`);
  }
  for (const finding of input.findings)
    lines.push(`${visible(whereText(finding))}: ${finding.severity} [${finding.rule}] ${visible(`${standaloneMessage(finding)}${renderedNote(finding)}`)}`);
  lines.push(summaryLine(input, (_code, text) => text));
  return lines.join('\n') + '\n';
}
