// The lint and audit output formats, each loaded when asked for: a run (a pre-commit hook's, say) loads
// the formatter it prints, not ten. The formats themselves are described in format-names.ts.
import { reportFormat, type Format } from './format-names.js';
import type { ReportInput } from './located.js';

export { REPORT_FORMATS, type Format } from './format-names.js';

/** The formats that list every object linted, findings or not (a JUnit test case or a report per object). */
export function formatListsObjects(format: Format): boolean {
  return reportFormat(format).listsObjects === true;
}

/** The formats that read a finding's whole object after it is located (Markdown draws the container's timeline). */
export function formatReadsObjects(format: Format): boolean {
  return reportFormat(format).readsObjects === true;
}

/** The formats that fingerprint each finding: its key is read from the object before the object is let go. */
export function formatFingerprints(format: Format): boolean {
  return reportFormat(format).fingerprints === true;
}

/** The formats that quote the source lines around each finding (the HTML report). */
export function formatQuotesSource(format: Format): boolean {
  return reportFormat(format).quotesSource === true;
}

export async function formatReport(format: Format, input: ReportInput): Promise<string> {
  return [...(await reportChunks(format, input))].join('');
}

/** The report as chunks to write in turn: text, compact, JSON and SARIF, the formats of large inputs, are never held whole. */
export async function reportChunks(format: Format, input: ReportInput): Promise<Iterable<string>> {
  const formatter = await reportFormat(format).load();
  return 'chunks' in formatter ? formatter.chunks(input) : [formatter.text(input)];
}
