import { linkRuntimeFindings, runtimeFirst } from '../engine/runtime-causes.js';
import { RULES } from '../../rules/index.js';
import { Engine, ruleFailureMessage, type LintResult } from '../engine/engine.js';
import { severityRank, type Finding } from '../engine/finding.js';
import type { Severity } from '../engine/rule.js';
import type { LintDocument } from '../model/document.js';
import { findPodSites } from '../model/pod-site.js';
import { describeResource, identityOf } from '../model/resource.js';
import { formatListsObjects, formatReadsObjects, reportChunks } from '../report/formats.js';
import {
  compareLocated,
  inputErrorOf,
  locate,
  summarize,
  withoutRepeats,
  type InputError,
  type LocatedFinding,
  type LocatedSuppressed,
  type ReportedObject,
  type ReportInput,
  type SummaryCounts,
} from '../report/located.js';
import { dirname } from 'node:path';
import { documentsOfFile } from '../source/file-documents.js';
import type { SourceFile } from '../source/source-file.js';
import { collectRunFacts } from '../engine/run-facts.js';
import { InputChanged, type InputFile } from '../source/inputs.js';
import { readInputs } from '../source/read-inputs.js';
import { inputCounts } from './input-counts.js';
import type { FailOn, LintArguments, ReportArguments } from './arguments.js';
import { cliClusterFacts, loadConfigOrReport, pathExclusion, useColor, withRuleSelection, type CommandIo } from './context.js';
import { VERSION } from './version.js';
import { visible } from '../report/visible.js';

/** `probe-lint PATH...`: returns the exit code. */
export async function runLint(args: LintArguments, io: CommandIo): Promise<number> {
  const loaded = await loadConfigOrReport(args.config, io);
  if (loaded === undefined) return 2;
  const config = withRuleSelection(loaded, args.enable, args.disable);
  const engine = new Engine(RULES, { config, cluster: await cliClusterFacts(args, config, io), strict: args.strict });

  const exclusion = pathExclusion(loaded, args.exclude, io.cwd);
  const { files, problems, notices } = await readInputs(args.paths, { readStdin: io.readStdin, env: io.env, render: args.render, exclusion });
  for (const notice of notices) io.stderr(`probe-lint: ${visible(notice)}\n`);
  const inputErrors: InputError[] = problems.map(inputErrorOf);
  // With fixes, stdout carries the fixed document or the diff, and the report moves to stderr.
  let report = io.stdout;
  if (args.fix || args.fixDryRun) {
    report = io.stderr;
    // The fixing code (the yaml package, JSON Patch, diff) loads only when fixing.
    (await import('./apply-fixes.js')).applyFixes(files, engine, args.fixTypes, args.fixDryRun, io, inputErrors);
  }
  const everyInputIsStdin = args.paths.every((path) => path === '-');
  const failIfNoObjects = args.failIfNoObjects ?? everyInputIsStdin;
  const release = !formatReadsObjects(args.format);
  return lintAndReport(engine, parsedUnits(files, inputErrors, release), {
    inputErrors,
    files: files.length,
    args,
    io,
    report,
    failIfNoObjects,
    release,
  });
}

/** Documents linted together, with what the summary counts of them. */
export interface LintGroup {
  documents: LintDocument[];
  /** Where each document's file stood among the inputs: objects are listed in input order whatever the grouping. */
  fileOrder?: number[];
  counts?: (engine: { resources: number; containers: number }) => SummaryCounts;
  /** Lets document `index` go from its file once its findings are located (lintAndReport with `release`). */
  forget?: (index: number) => void;
}

/**
 * The inputs by deployment unit: a directory of plain files, or every rendering of one chart or
 * kustomization. A Service selects only pods deployed with it (deploymentScope), which never spans two
 * units, so each unit is linted on its own and its parsed files are let go before the next is parsed:
 * memory follows the largest unit, not the whole input.
 */
function groupsOf(files: readonly InputFile[]): { file: InputFile; order: number }[][] {
  const groups = new Map<string, { file: InputFile; order: number }[]>();
  files.forEach((file, order) => {
    const key = file.rendered !== undefined ? `${file.rendered.from}\u0000${file.rendered.root ?? '-'}` : file.path === '-' ? '-' : dirname(file.path);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [{ file, order }]);
    else group.push({ file, order });
  });
  return [...groups.values()];
}

/**
 * The inputs' deployment units, each parsed when its turn comes; a file that cannot be read or
 * parsed is an input error. With `release`, a file's text is let go once parsed (its documents keep
 * what they need), so a file on disk is read only when its unit comes.
 */
export function* parsedUnits(files: readonly InputFile[], inputErrors: InputError[], release: boolean): Generator<LintGroup> {
  // Each unit is parsed by a function of its own: what the generator's frame holds between units
  // is the list of files, never a parsed file (a finished generator kept the last unit's whole text).
  for (const unit of groupsOf(files)) yield parsedUnit(unit, inputErrors, release);
}

function parsedUnit(unit: readonly { file: InputFile; order: number }[], inputErrors: InputError[], release: boolean): LintGroup {
  const documents: LintDocument[] = [];
  const fileOrder: number[] = [];
  const sources: { source: SourceFile; index: number }[] = [];
  for (const { file, order } of unit) {
    let read;
    try {
      read = documentsOfFile(file);
    } catch (error) {
      if (!(error instanceof InputChanged)) throw error;
      inputErrors.push(inputErrorOf(error.problem));
      continue;
    }
    if (release) file.release?.();
    if (read.problem !== undefined) inputErrors.push(inputErrorOf(read.problem));
    const source = read.source;
    read.documents.forEach((document, index) => {
      documents.push(document);
      fileOrder.push(order);
      sources.push({ source, index });
    });
  }
  const unitFiles = unit.map(({ file }) => file);
  return { documents, fileOrder, counts: inputCounts(unitFiles, documents), forget: (index) => sources[index]!.source.forget(sources[index]!.index) };
}

/** Runs the engine over each group of documents, prints the report in the chosen format, returns the exit code. */
export async function lintAndReport(
  engine: Engine,
  groups: Iterable<LintGroup>,
  context: {
    inputErrors: InputError[];
    files: number;
    args: ReportArguments;
    io: CommandIo;
    /** Where the report goes; when it is io.stdout, each chunk waits for stdout to take the last (io.stdoutWritten). */
    report: (text: string) => void;
    failIfNoObjects: boolean;
    /** audit with runtime evidence: runtime findings linked to their likely causes, and first. */
    runtime?: boolean;
    /** Let each group's parsed documents go once its findings are located (no format reads them after). */
    release?: boolean;
    /** Sees what was reported (audit --apply-reports writes it into the cluster too). */
    onReport?: (input: ReportInput) => void;
  },
): Promise<number> {
  const { inputErrors, args, io } = context;
  // In a function of its own: once it returns, nothing of the last group is left on the stack.
  const { located, suppressed, objects, unlisted, hidden, documentCount, counts, engineCounts } = lintGroups(engine, groups, context);
  if (engineCounts.resources === 0 && context.failIfNoObjects && inputErrors.length === 0) {
    inputErrors.push({
      file: context.files === 1 && documentCount === 0 ? '-' : '(input)',
      message: 'no Kubernetes objects found (was the input empty, or did the command that produced it fail?)',
    });
  }
  const sorted = withoutRepeats(located).sort(compareLocated);
  const findings = context.runtime === true ? runtimeFirst(sorted, engine.rules) : sorted;
  const input: ReportInput = {
    findings,
    objects: () => {
      for (const group of unlisted.splice(0)) group.documents.forEach((document, index) => listObjects(objects, document, group.fileOrder?.[index]));
      return objects.sort((a, b) => a.order - b.order).map(({ object }) => object);
    },
    enabledRules: engine.enabledRuleIds,
    failOn: args.failOn,
    sourceLink: githubSourceLink(io.env),
    suppressed: suppressed.sort(compareLocated),
    inputErrors,
    summary: summarize(findings, counts ?? { files: context.files, ...engineCounts }),
    hidden,
    rules: RULES,
    showSuppressed: args.showSuppressed,
    color: useColor(args.color, io),
    columns: io.isTty ? io.columns : undefined,
    toolVersion: VERSION,
    generatedAt: reportTime(io.env),
  };
  // A report written to a slow pipe is not held whole in memory.
  const written = context.report === io.stdout ? io.stdoutWritten : undefined;
  for (const chunk of await reportChunks(args.format, input)) {
    context.report(chunk);
    await written?.();
  }
  context.onReport?.(input);
  if (inputErrors.length > 0) return 2;
  return findings.some((finding) => failsOn(finding.severity, args.failOn)) ? 1 : 0;
}

/** What linting the groups gathered for the report. */
interface Linted {
  located: LocatedFinding[];
  suppressed: LocatedSuppressed[];
  /** The objects listed as their groups went by (release), for the formats and reports that list them. */
  objects: { object: ReportedObject; order: number }[];
  /** Groups whose objects are listed when asked (audit's reports read them whatever the format printed). */
  unlisted: LintGroup[];
  hidden: number;
  documentCount: number;
  /** The groups' own counts, when they say them. */
  counts: SummaryCounts | undefined;
  engineCounts: { resources: number; containers: number };
}

/** Runs the engine over each group, locating the findings shown and counting the rest. */
function lintGroups(
  engine: Engine,
  groups: Iterable<LintGroup>,
  context: { inputErrors: InputError[]; args: ReportArguments; runtime?: boolean; release?: boolean },
): Linted {
  const { inputErrors, args } = context;
  const shown = (severity: Severity) => severityRank(severity) >= severityRank(args.minSeverity);
  // Findings of one rule repeat their texts (the numbers are mostly the defaults; names are not in
  // them): each distinct text is held once, not once per finding (14 of the 30 MB 27,000 findings took).
  const texts = new Map<string, string>();
  const shared = (text: string) => {
    const known = texts.get(text);
    if (known !== undefined) return known;
    texts.set(text, text);
    return text;
  };
  const settle = <T extends Finding>(finding: T) => {
    finding.message = shared(finding.message);
    finding.short = shared(finding.short);
    finding.pointer = shared(finding.pointer);
    if (finding.fix !== undefined) for (const operation of finding.fix) operation.path = shared(operation.path);
    return context.release === true ? released(locate(finding)) : locate(finding);
  };
  const linted: Linted = {
    located: [],
    suppressed: [],
    objects: [],
    unlisted: [],
    hidden: 0,
    documentCount: 0,
    counts: undefined,
    engineCounts: { resources: 0, containers: 0 },
  };
  for (const group of groups) {
    // Services select pods across the group: its facts first, then one document at a time, each let
    // go (with `release`) once its findings are located — the group's parse is the peak, not the
    // parse and every finding on top of it.
    const run = collectRunFacts(group.documents);
    const seen = { resources: 0, containers: 0 };
    for (let index = 0; index < group.documents.length; index++) {
      const result: LintResult = engine.lint([group.documents[index]!], run);
      seen.resources += result.resources;
      seen.containers += result.containers;
      if (context.runtime === true) linkRuntimeFindings(result.findings, engine.rules);
      for (const failure of result.failures) {
        const where = failure.resource.origin.file ?? describeResource(identityOf(failure.resource.object));
        inputErrors.push({ file: where, message: ruleFailureMessage(failure) });
      }
      for (const finding of result.findings) {
        if (shown(finding.severity)) linted.located.push(settle(finding));
        else linted.hidden++;
      }
      for (const finding of result.suppressed) if (shown(finding.severity)) linted.suppressed.push(settle(finding));
      if (context.release === true) {
        if (formatListsObjects(args.format)) listObjects(linted.objects, group.documents[index]!, group.fileOrder?.[index]);
        group.documents[index] = { resources: [] };
        group.forget?.(index);
      }
    }
    linted.documentCount += group.documents.length;
    linted.engineCounts.resources += seen.resources;
    linted.engineCounts.containers += seen.containers;
    if (context.release !== true) linted.unlisted.push(group);
    if (group.counts !== undefined) linted.counts = addCounts(linted.counts ?? { files: 0, resources: 0, containers: 0 }, group.counts(seen));
  }
  return linted;
}

function listObjects(objects: { object: ReportedObject; order: number }[], document: LintDocument, order: number | undefined): void {
  for (const object of objectsOf(document)) objects.push({ object, order: order ?? 0 });
}

/** The objects with pod specs: the ones the rules are about (a finding on another object gets its test case too). */
function objectsOf(document: LintDocument): ReportedObject[] {
  return document.resources
    .filter((resource) => findPodSites(resource).length > 0)
    .map((resource) => {
      const identity = identityOf(resource.object);
      return { file: resource.origin.file, name: describeResource(identity), identity };
    });
}

/** A located finding that holds only what reports read: its object's identity, not the parsed file. */
function released<T extends LocatedFinding>(finding: T): T {
  const { resource } = finding;
  const { apiVersion, kind, metadata } = resource.object;
  finding.resource = {
    // The identity (kind, namespace, name) is the finding's own; the object keeps only what names it.
    object: {
      apiVersion,
      kind,
      metadata: {
        ...(metadata?.name === undefined ? {} : { name: metadata.name }),
        ...(metadata?.namespace === undefined ? {} : { namespace: metadata.namespace }),
      },
    },
    document: undefined,
    pointer: resource.pointer,
    origin: {
      ...(resource.origin.file === undefined ? {} : { file: resource.origin.file }),
      ...(resource.origin.documentIndex === undefined ? {} : { documentIndex: resource.origin.documentIndex }),
    },
  };
  return finding;
}

function addCounts(a: SummaryCounts, b: SummaryCounts): SummaryCounts {
  const optional = (key: 'charts' | 'kustomizations' | 'renderings') => {
    const sum = (a[key] ?? 0) + (b[key] ?? 0);
    return a[key] === undefined && b[key] === undefined ? {} : { [key]: sum };
  };
  return {
    files: a.files + b.files,
    ...optional('charts'),
    ...optional('kustomizations'),
    ...optional('renderings'),
    resources: a.resources + b.resources,
    containers: a.containers + b.containers,
  };
}

/** Links to lines on GitHub, where a workflow says which repository and commit it runs on. */
function githubSourceLink(env: Readonly<Record<string, string | undefined>>): ((file: string, line: number | undefined) => string | undefined) | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repository, GITHUB_SHA: sha } = env;
  if (!server || !repository || !sha || !/^[\w.-]+\/[\w.-]+$/.test(repository) || !/^[0-9a-f]{7,64}$/.test(sha)) return undefined;
  return (file, line) =>
    file.startsWith('/') || file.startsWith('..') || file === '-'
      ? undefined
      : `${server}/${repository}/blob/${sha}/${file.split('/').map(encodeURIComponent).join('/')}${line === undefined ? '' : `#L${line}`}`;
}

function failsOn(severity: Severity, failOn: FailOn): boolean {
  return failOn !== 'never' && severityRank(severity) >= severityRank(failOn);
}

/** SOURCE_DATE_EPOCH (the reproducible-builds convention) when it is a number of seconds, else now. */
function reportTime(env: Readonly<Record<string, string | undefined>>): Date {
  const epoch = env.SOURCE_DATE_EPOCH;
  return epoch !== undefined && /^\d{1,12}$/.test(epoch) ? new Date(Number(epoch) * 1000) : new Date();
}
