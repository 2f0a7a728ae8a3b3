import { standaloneMessage } from './finding-text.js';
import { inputErrorWhere, renderedNote, whereText, type ReportInput } from './located.js';
import { lineChunks, summaryLine } from './text.js';
import { visible } from './visible.js';

/** One line per problem, `file:line:column: severity [rule] message`, for editors and grep; in chunks, each line made when its chunk is. */
export function compactChunks(input: ReportInput): Generator<string> {
  return lineChunks(compactLines(input));
}

function* compactLines(input: ReportInput): Generator<string> {
  for (const error of input.inputErrors) {
    yield `${visible(inputErrorWhere(error))}: ${error.severity ?? 'error'} [input] ${visible(error.message)}`;
  }
  for (const finding of input.findings)
    yield `${visible(whereText(finding))}: ${finding.severity} [${finding.rule}] ${visible(`${standaloneMessage(finding)}${renderedNote(finding)}`)}`;
  yield summaryLine(input, (_code, text) => text);
}
