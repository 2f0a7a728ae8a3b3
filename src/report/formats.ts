// The lint and audit output formats: one formatter per name of format-names.ts; the Record makes
// the compiler keep the two in step, and --help and the README's options table read the same names.
// A formatter's module loads when its format is asked for: a run (a pre-commit hook's, say) loads
// the one it prints, not ten, nor the hashing and JUnit code only some of them need.
import type { Format } from './format-names.js';
import type { ReportInput } from './located.js';

export { REPORT_FORMATS, type Format } from './format-names.js';

interface Formatter {
  /** The whole report. */
  text: (input: ReportInput) => string;
  /** The report in chunks to write in turn, for the formats of large inputs (never held whole). */
  chunks?: (input: ReportInput) => Iterable<string>;
}

const FORMATTERS: Record<Format, () => Promise<Formatter>> = {
  text: async () => ({ text: (await import('./text.js')).formatText }),
  compact: async () => ({ text: (await import('./compact.js')).formatCompact }),
  json: async () => {
    const { formatJson, jsonChunks } = await import('./json.js');
    return { text: formatJson, chunks: jsonChunks };
  },
  sarif: async () => {
    const { formatSarif, sarifChunks } = await import('./sarif.js');
    return { text: formatSarif, chunks: sarifChunks };
  },
  github: async () => ({ text: (await import('./github.js')).formatGithub }),
  junit: async () => ({ text: (await import('./junit.js')).formatJunit }),
  gitlab: async () => ({ text: (await import('./gitlab.js')).formatGitlab }),
  markdown: async () => ({ text: (await import('./markdown.js')).formatMarkdown }),
  openreports: async () => ({ text: (await import('./policy-reports.js')).formatOpenReports }),
  policyreport: async () => ({ text: (await import('./policy-reports.js')).formatPolicyReports }),
};

/** The formats that list every object linted, findings or not (a JUnit test case or a report per object). */
export function formatListsObjects(format: Format): boolean {
  return format === 'junit' || format === 'policyreport' || format === 'openreports';
}

/** The formats that read a finding's whole object after it is located (Markdown draws the container's timeline). */
export function formatReadsObjects(format: Format): boolean {
  return format === 'markdown';
}

export async function formatReport(format: Format, input: ReportInput): Promise<string> {
  return (await FORMATTERS[format]()).text(input);
}

/** The report as chunks to write in turn: JSON and SARIF, the formats of large inputs, are never held whole. */
export async function reportChunks(format: Format, input: ReportInput): Promise<Iterable<string>> {
  const formatter = await FORMATTERS[format]();
  return formatter.chunks?.(input) ?? [formatter.text(input)];
}
