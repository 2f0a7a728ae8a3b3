import type { Finding, SuppressedFinding } from '../engine/finding.js';
import type { AnyRule, Severity } from '../engine/rule.js';
import type { InputErrorKind } from '../model/input-error-kind.js';
import { describeResource, type ResourceIdentity } from '../model/resource.js';

/** A finding with its place in the source resolved; what every report format prints. */
export interface LocatedFinding extends Finding {
  /** The file the user edits: the manifest, or for rendered input the template, declaring file or patch. */
  file: string | undefined;
  line: number | undefined;
  column: number | undefined;
  /** For rendered input: where the finding sits in the rendered output. */
  rendered?: { from: 'helm' | 'kustomize'; root: string | undefined; values: string | undefined; line: number; column: number; inside?: string };
  /** Other objects the same finding was made on at the same place (renderings that rename them), as Kind/namespace/name. */
  alsoIn?: string[];
  /** The pointer with containers named, not counted (finding-key.ts): read while the object is at hand. */
  field?: string;
  /** What the probe the finding is in checks, as canonical JSON (finding-key.ts). */
  probeValues?: string;
}

export interface LocatedSuppressed extends LocatedFinding {
  suppression: SuppressedFinding['suppression'];
}

export interface InputError {
  file: string;
  line?: number;
  column?: number;
  kind: InputErrorKind;
  message: string;
  /** 'warning' when config lets this kind pass (inputErrors.network: warning): shown, never exit 2. */
  severity?: 'warning';
}

export interface ChangedSince {
  ref: string;
  base: string;
  files: number;
  /** Findings located in files the change does not touch: counted, not shown. */
  outside: number;
}

/** The input errors that stop the run (exit 2): all but those config turned into warnings. */
export function failingInputErrors(errors: readonly InputError[]): InputError[] {
  return errors.filter((error) => error.severity !== 'warning');
}

export interface Summary {
  /** Files read as they are (not rendered). */
  files: number;
  /** Charts and kustomizations rendered, and how many renderings they made (a chart renders once per ci/ values file too); absent when none. */
  charts?: number;
  kustomizations?: number;
  renderings?: number;
  /** Objects and containers, each counted once however many renderings of its chart hold it. */
  resources: number;
  containers: number;
  errors: number;
  warnings: number;
  infos: number;
}

/** An object that was linted, findings or not: a JUnit test case per object and rule. */
export interface ReportedObject {
  file: string | undefined;
  /** Kind/namespace/name. */
  name: string;
  identity?: ResourceIdentity;
}

/** Everything a report formatter needs; formatters only format. */
export interface ReportInput {
  findings: LocatedFinding[];
  /** Every object with a pod spec that was linted (computed only for the formats that list them), and the rules that ran. */
  objects: () => ReportedObject[];
  enabledRules: string[];
  /** Findings at or above this fail the run (--fail-on). */
  failOn: Severity | 'never';
  /** The text of a file findings are located in, as read for the run (the HTML report quotes its lines); undefined when it cannot be read. */
  sourceText?: ((file: string) => string | undefined) | undefined;
  /** A link to a line of a file of the repository, where the CI says where it is (GitHub's job summary). */
  sourceLink?: ((file: string, line: number | undefined) => string | undefined) | undefined;
  suppressed: LocatedSuppressed[];
  inputErrors: InputError[];
  summary: Summary;
  /** Findings below --min-severity, counted but not shown. */
  hidden: number;
  rules: readonly AnyRule[];
  showSuppressed: boolean;
  color: boolean;
  /** Terminal width, when the report goes to a terminal: text wraps messages to it. */
  columns: number | undefined;
  toolVersion: string;
  /** When the report is made: now, or SOURCE_DATE_EPOCH (seconds) for reproducible output. */
  generatedAt: Date;
  /** Findings located in files the run was not given (a file named alone, linted through its chart or kustomization): counted, not shown. */
  outsideInputs?: number | undefined;
  /** With --changed-since: the revision, the merge base compared with, how many files changed, and the findings left out as outside the change. */
  changedSince?: ChangedSince | undefined;
  /** What the user should know that is not an error (a chart rendered without its schema), as stderr said it. */
  notices?: readonly string[] | undefined;
  /** For audit: which cluster and namespaces were read, and what runtime evidence, in words (the HTML report's summary says so). */
  auditScope?: { cluster: string; namespaces: string; evidence: string } | undefined;
  /** With a baseline: the findings it holds (not in `findings`), and its entries no longer found. */
  baseline?: BaselineReport | undefined;
}

export interface BaselineReport {
  /** The baseline file, as shown. */
  file: string;
  baselined: LocatedFinding[];
  fixed: BaselineEntry[];
}

/** One key of a baseline (baseline.ts), with how many findings had it. */
export interface BaselineEntry {
  /** The finding key: what is matched. The fields below are for the reviewer. */
  key: string;
  rule: string;
  /** Kind/namespace/name. */
  object: string;
  container: string | null;
  /** The file it was found in when recorded (not matched: objects move). */
  file: string | null;
  /** How many findings had this key. */
  count: number;
}

/** " (helm template charts/app with ci/x-values.yaml, line 113:11)" for rendered findings, else "". */
export function renderedNote(finding: LocatedFinding): string {
  const rendered = finding.rendered;
  if (rendered === undefined) return '';
  const what = rendered.from === 'helm' ? 'helm template' : 'kustomize build';
  const of = rendered.root === undefined ? ' of stdin' : ` ${rendered.root}`;
  const values = rendered.values === undefined ? '' : ` with ${rendered.values}`;
  const inside = rendered.inside === undefined ? '' : `${rendered.inside} in the archive; `;
  return ` (${inside}${what}${of}${values}, line ${rendered.line}:${rendered.column})`;
}

export function compareLocated(a: LocatedFinding, b: LocatedFinding): number {
  return compareText(a.file ?? '', b.file ?? '') || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0) || compareText(a.rule, b.rule);
}

/** Code-unit order: stable across locales, and far cheaper than localeCompare on large outputs. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** What a run read, as the summary counts it: everything but the findings. */
export type SummaryCounts = Omit<Summary, 'errors' | 'warnings' | 'infos'>;

export function summarize(findings: readonly Finding[], counts: SummaryCounts): Summary {
  const count = (severity: Severity) => findings.filter((finding) => finding.severity === severity).length;
  return { ...counts, errors: count('error'), warnings: count('warning'), infos: count('info') };
}

/** "3 files, 2 charts (5 renderings), 40 resources, 12 containers" — the nouns as the format calls them. */
export function scopeText(summary: Summary, nouns: { resource: string } = { resource: 'resource' }): string {
  const count = (value: number, word: string) => `${value} ${value === 1 ? word : `${word}s`}`;
  const units = (summary.charts ?? 0) + (summary.kustomizations ?? 0);
  const parts = summary.files > 0 || units === 0 ? [count(summary.files, 'file')] : [];
  if (summary.charts) parts.push(count(summary.charts, 'chart'));
  if (summary.kustomizations) parts.push(count(summary.kustomizations, 'kustomization'));
  const rendered = summary.renderings !== undefined && summary.renderings > units ? ` (${count(summary.renderings, 'rendering')})` : '';
  return `${parts.join(', ')}${rendered}, ${count(summary.resources, nouns.resource)}, ${count(summary.containers, 'container')}`;
}

/** "file:12:7", or the object's name when there is no file (admission, audit). */
export function whereText(finding: LocatedFinding): string {
  if (finding.file === undefined) return describeResource(finding.identity);
  return finding.line === undefined ? finding.file : `${finding.file}:${finding.line}:${finding.column}`;
}

/** "file:12:7" for an input error, or the file alone when it has no line (a file that cannot be read). */
export function inputErrorWhere(error: InputError): string {
  return error.line === undefined ? error.file : `${error.file}:${error.line}:${error.column ?? 1}`;
}

/** A problem reading an input, as reports list it. */
export function inputErrorOf(problem: { path: string; line?: number; column?: number; kind: InputErrorKind; message: string }): InputError {
  return {
    file: problem.path,
    ...(problem.line !== undefined ? { line: problem.line, column: problem.column ?? 1 } : {}),
    kind: problem.kind,
    message: problem.message,
  };
}
