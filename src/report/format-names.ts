// The names of the lint and audit output formats and the words --help and the README use for them,
// apart from the formatters so that reading the command line loads none of them.
export const REPORT_FORMATS = ['text', 'compact', 'json', 'sarif', 'github', 'junit', 'gitlab', 'markdown', 'openreports', 'policyreport'] as const;
export type Format = (typeof REPORT_FORMATS)[number];

export const FORMAT_DESCRIPTIONS: Record<Format, string> = {
  text: 'text (default)',
  compact: 'compact (one line each)',
  json: 'json',
  sarif: 'sarif (code scanning)',
  github: 'github (annotations)',
  junit: 'junit (Jenkins, GitLab, Azure DevOps tests)',
  gitlab: 'gitlab (Code Quality)',
  markdown: 'markdown (a job summary)',
  openreports: 'openreports (openreports.io Report objects)',
  policyreport: 'policyreport (wgpolicyk8s.io PolicyReport objects)',
};

/** "text (default), compact (one line each), …": what --format takes for lint and audit. */
export function reportFormatsText(): string {
  return REPORT_FORMATS.map((format) => FORMAT_DESCRIPTIONS[format]).join(', ');
}

export const TIMELINE_FORMATS = ['text', 'json', 'svg', 'markdown'] as const;
export type TimelineFormat = (typeof TIMELINE_FORMATS)[number];

const TIMELINE_FORMAT_DESCRIPTIONS: Record<TimelineFormat, string> = {
  text: 'text (default)',
  json: 'json',
  svg: 'svg (a chart)',
  markdown: 'markdown (a table and a Mermaid chart)',
};

/** What --format takes for timeline. */
export function timelineFormatsText(): string {
  return TIMELINE_FORMATS.map((format) => TIMELINE_FORMAT_DESCRIPTIONS[format]).join(', ');
}
