// Every output format, one descriptor each (as ESLint's formatters-meta): its name, what --help and
// the docs say of it, what it needs of a run, and how to load its formatter. The lists --help, the
// argument parser and the docs read are derived from these, so they cannot fall out of step. Loading
// this module loads no formatter: each loads when its format is asked for.
import type { ContainerTimeline } from './timeline.js';
import type { ReportInput } from './located.js';

/**
 * A format writes its report whole (`text`), or in chunks to write in turn (`chunks`): the formats
 * of large inputs, never held whole. The whole text of those is their chunks joined (formats.ts).
 */
export type ReportFormatter = { text: (input: ReportInput) => string } | { chunks: (input: ReportInput) => Iterable<string> };

interface ReportFormatDescriptor {
  description: string;
  /** It lists every object linted, findings or not (a JUnit test case or a report per object). */
  listsObjects?: true;
  /** It reads a finding's whole object after it is located (Markdown draws the container's timeline). */
  readsObjects?: true;
  /** It gives each finding its fingerprint (finding-key.ts), which is read from the object. */
  fingerprints?: true;
  /** It quotes the source lines around each finding (ReportInput.sourceText). */
  quotesSource?: true;
  load: () => Promise<ReportFormatter>;
}

const REPORT_FORMAT_DESCRIPTORS = {
  text: { description: 'text (default)', load: async () => ({ chunks: (await import('./text.js')).textChunks }) },
  compact: { description: 'compact (one line each)', load: async () => ({ chunks: (await import('./compact.js')).compactChunks }) },
  json: { description: 'json', fingerprints: true, load: async () => ({ chunks: (await import('./json.js')).jsonChunks }) },
  sarif: { description: 'sarif (code scanning)', fingerprints: true, load: async () => ({ chunks: (await import('./sarif.js')).sarifChunks }) },
  github: { description: 'github (annotations)', load: async () => ({ text: (await import('./github.js')).formatGithub }) },
  junit: {
    description: 'junit (Jenkins, GitLab, Azure DevOps tests)',
    listsObjects: true,
    load: async () => ({ text: (await import('./junit.js')).formatJunit }),
  },
  gitlab: { description: 'gitlab (Code Quality)', fingerprints: true, load: async () => ({ text: (await import('./gitlab.js')).formatGitlab }) },
  markdown: { description: 'markdown (a job summary)', readsObjects: true, load: async () => ({ text: (await import('./markdown.js')).formatMarkdown }) },
  html: {
    description: 'html (one page, filters, timelines)',
    readsObjects: true,
    fingerprints: true,
    quotesSource: true,
    load: async () => ({ text: (await import('./html.js')).formatHtml }),
  },
  openreports: {
    description: 'openreports (openreports.io Report objects)',
    listsObjects: true,
    load: async () => ({ text: (await import('./policy-reports.js')).formatOpenReports }),
  },
  policyreport: {
    description: 'policyreport (wgpolicyk8s.io PolicyReport objects)',
    listsObjects: true,
    load: async () => ({ text: (await import('./policy-reports.js')).formatPolicyReports }),
  },
} satisfies Record<string, ReportFormatDescriptor>;

export type Format = keyof typeof REPORT_FORMAT_DESCRIPTORS;
export const REPORT_FORMATS = Object.keys(REPORT_FORMAT_DESCRIPTORS) as Format[];

export function reportFormat(format: Format): ReportFormatDescriptor {
  return REPORT_FORMAT_DESCRIPTORS[format];
}

/** "text (default), compact (one line each), …": what --format takes for lint and audit. */
export function reportFormatsText(): string {
  return REPORT_FORMATS.map((format) => REPORT_FORMAT_DESCRIPTORS[format].description).join(', ');
}

interface TimelineFormatDescriptor {
  description: string;
  load: () => Promise<(timelines: readonly ContainerTimeline[]) => string>;
}

const TIMELINE_FORMAT_DESCRIPTORS = {
  text: { description: 'text (default)', load: async () => (await import('./timeline.js')).formatTimelineText },
  json: { description: 'json', load: async () => (await import('./timeline.js')).formatTimelineJson },
  svg: { description: 'svg (a chart)', load: async () => (await import('./timeline-svg.js')).formatTimelineSvg },
  markdown: { description: 'markdown (a table and a Mermaid chart)', load: async () => (await import('./timeline-markdown.js')).formatTimelineMarkdown },
} satisfies Record<string, TimelineFormatDescriptor>;

export type TimelineFormat = keyof typeof TIMELINE_FORMAT_DESCRIPTORS;
export const TIMELINE_FORMATS = Object.keys(TIMELINE_FORMAT_DESCRIPTORS) as TimelineFormat[];

export function timelineFormat(format: TimelineFormat): TimelineFormatDescriptor {
  return TIMELINE_FORMAT_DESCRIPTORS[format];
}

/** What --format takes for timeline. */
export function timelineFormatsText(): string {
  return TIMELINE_FORMATS.map((format) => TIMELINE_FORMAT_DESCRIPTORS[format].description).join(', ');
}
