// The lint and audit output formats: one formatter per name of format-names.ts; the Record makes
// the compiler keep the two in step, and --help and the README's options table read the same names.
import { formatCompact } from './compact.js';
import type { Format } from './format-names.js';
import { formatGithub } from './github.js';
import { formatGitlab } from './gitlab.js';
import { formatJson, jsonChunks } from './json.js';
import { formatJunit } from './junit.js';
import type { ReportInput } from './located.js';
import { formatMarkdown } from './markdown.js';
import { formatOpenReports, formatPolicyReports } from './policy-reports.js';
import { formatSarif, sarifChunks } from './sarif.js';
import { formatText } from './text.js';

export { REPORT_FORMATS, type Format } from './format-names.js';

const FORMATTERS: Record<Format, (input: ReportInput) => string> = {
  text: formatText,
  compact: formatCompact,
  json: formatJson,
  sarif: formatSarif,
  github: formatGithub,
  junit: formatJunit,
  gitlab: formatGitlab,
  markdown: formatMarkdown,
  openreports: formatOpenReports,
  policyreport: formatPolicyReports,
};

/** The formats that list every object linted, findings or not (a JUnit test case or a report per object). */
export function formatListsObjects(format: Format): boolean {
  return format === 'junit' || format === 'policyreport' || format === 'openreports';
}

/** The formats that read a finding's whole object after it is located (Markdown draws the container's timeline). */
export function formatReadsObjects(format: Format): boolean {
  return format === 'markdown';
}

export function formatReport(format: Format, input: ReportInput): string {
  return FORMATTERS[format](input);
}

/** The report as chunks to write in turn: JSON and SARIF, the formats of large inputs, are never held whole. */
export function reportChunks(format: Format, input: ReportInput): Iterable<string> {
  if (format === 'json') return jsonChunks(input);
  if (format === 'sarif') return sarifChunks(input);
  return [FORMATTERS[format](input)];
}
