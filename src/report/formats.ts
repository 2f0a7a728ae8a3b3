import { formatCompact } from './compact.js';
import { formatGithub } from './github.js';
import { formatJson } from './json.js';
import type { ReportInput } from './located.js';
import { formatSarif } from './sarif.js';
import { formatText } from './text.js';

export const REPORT_FORMATS = ['text', 'compact', 'json', 'sarif', 'github'] as const;
export type Format = (typeof REPORT_FORMATS)[number];

const FORMATTERS: Record<Format, (input: ReportInput) => string> = {
  text: formatText,
  compact: formatCompact,
  json: formatJson,
  sarif: formatSarif,
  github: formatGithub,
};

export function formatReport(format: Format, input: ReportInput): string {
  return FORMATTERS[format](input);
}
