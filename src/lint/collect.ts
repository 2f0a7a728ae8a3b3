// Units through the engine: every finding located in what the user edits, each once, in report
// order, with what the summary and the formats that list objects need. Prints nothing.
import { resultProblems, type Engine, type LintResult } from '../engine/engine.js';
import { severityRank, type Finding } from '../engine/finding.js';
import type { Severity } from '../engine/rule.js';
import { linkRuntimeFindings, runtimeFirst } from '../engine/runtime-causes.js';
import { RunFacts, type ServiceQuery } from '../engine/run-facts.js';
import type { LintDocument } from '../model/document.js';
import { findPodSites } from '../model/pod-site.js';
import { describeResource, identityOf, type Resource } from '../model/resource.js';
import {
  compareLocated,
  type ChangedSince,
  type InputError,
  type LocatedFinding,
  type LocatedSuppressed,
  type ReportedObject,
  type SummaryCounts,
} from '../report/located.js';
import { keyedPlace } from '../report/finding-place.js';
import { locate, withoutRepeats } from './locate.js';
import type { LintUnit } from './units.js';

export interface CollectOptions {
  /** Findings below it are counted (hidden), not kept. */
  minSeverity: Severity;
  /** Input files read, for the summary when the units do not count for themselves (0 for a cluster). */
  files: number;
  /** Keep a list of every object with a pod spec as the units go by (the formats that list objects). */
  listObjects?: boolean;
  /** Let each unit's parsed documents go once its findings are located (no format reads them after). */
  release?: boolean;
  /** Fingerprints or a baseline will key the findings: read each key's parts from the object before it is let go. */
  keyed?: boolean;
  /** audit with runtime evidence: runtime findings linked to their likely causes, and first. */
  runtime?: boolean;
  /** No object at all is an input error (a stream on stdin that should have held some). */
  failIfNoObjects?: boolean;
}

/** What a run found, ready for any format. */
export interface LintOutcome {
  /** Each finding once, in report order. */
  findings: LocatedFinding[];
  suppressed: LocatedSuppressed[];
  /** Every object with a pod spec that was linted, in input order (a JUnit test case each). */
  objects: () => ReportedObject[];
  /** Findings below minSeverity. */
  hidden: number;
  counts: SummaryCounts;
  /** Reading, parsing and rule failures, in the order met. */
  inputErrors: InputError[];
  /** Findings located in files the run was not given (a file named alone, linted through its chart or kustomization): counted, not shown. */
  outsideInputs?: number;
  /** With --changed-since: what the change was, and the findings outside it (counted, not shown). */
  changedSince?: ChangedSince;
}

/** Runs the engine over each unit, locating the findings shown and counting the rest. */
export function collectFindings(engine: Engine, units: Iterable<LintUnit>, inputErrors: InputError[], options: CollectOptions): LintOutcome {
  // In a function of its own: once it returns, nothing of the last unit is left on the stack.
  const linted = lintUnits(engine, units, inputErrors, options);
  if (linted.engineCounts.resources === 0 && options.failIfNoObjects === true && inputErrors.length === 0) {
    inputErrors.push({
      file: options.files === 1 && linted.documentCount === 0 ? '-' : '(input)',
      kind: 'no-objects',
      message: 'no Kubernetes objects found (was the input empty, or did the command that produced it fail?)',
    });
  }
  const sorted = withoutRepeats(linted.located);
  const { objects, unlisted } = linted;
  return {
    findings: options.runtime === true ? runtimeFirst(sorted, engine.rules) : sorted,
    suppressed: linted.suppressed.sort(compareLocated),
    objects: () => {
      for (const unit of unlisted.splice(0)) unit.documents.forEach((document, index) => listObjects(objects, document, unit.fileOrder?.[index], index));
      // By file, then by document: a unit lints its documents in an order of its own (some wait for its Services).
      return objects.sort((a, b) => a.order - b.order || a.index - b.index).map(({ object }) => object);
    },
    hidden: linted.hidden,
    counts: linted.counts ?? { files: options.files, ...linted.engineCounts },
    inputErrors,
  };
}

/** What linting the units gathered. */
interface Linted {
  located: LocatedFinding[];
  suppressed: LocatedSuppressed[];
  /** The objects listed as their units went by (release). */
  objects: ListedObject[];
  /** Units whose objects are listed when asked. */
  unlisted: LintUnit[];
  hidden: number;
  documentCount: number;
  /** The units' own counts, when they say them. */
  counts: SummaryCounts | undefined;
  engineCounts: { resources: number; containers: number };
}

/**
 * Findings of one rule repeat their texts (the numbers are mostly the defaults; names are not in
 * them): each distinct text is held once, not once per finding.
 */
class TextInterner {
  private readonly texts = new Map<string, string>();

  shared(text: string): string {
    const known = this.texts.get(text);
    if (known !== undefined) return known;
    this.texts.set(text, text);
    return text;
  }

  /** The finding with its texts shared and its place located (and let go of its objects, with `release`). */
  settle<T extends Finding>(finding: T, release: boolean, keyed: boolean): T & LocatedFinding {
    finding.message = this.shared(finding.message);
    finding.short = this.shared(finding.short);
    finding.pointer = this.shared(finding.pointer);
    if (finding.fix !== undefined) for (const operation of finding.fix) operation.path = this.shared(operation.path);
    const located = locate(finding);
    if (!release) return located;
    // Kept findings keyed from their object now: afterwards only its identity is left (a key read then
    // from the object would lack the container names and the probe's check).
    if (keyed) Object.assign(located, keyedPlace(located));
    return released(located);
  }
}

function lintUnits(engine: Engine, units: Iterable<LintUnit>, inputErrors: InputError[], options: CollectOptions): Linted {
  const texts = new TextInterner();
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
  for (const unit of units) new UnitLinter(engine, unit, options, texts, linted).lint(inputErrors);
  return linted;
}

/**
 * One deployment unit's documents, each linted as its file is parsed, with the Services known so far
 * (its file's and those before), and let go (with `release`) once its findings are located. Services
 * select pods across the unit, so a document a rule asked about Services (a container without a
 * readiness probe) waits for the unit's last file: its findings stand if the answers are the same
 * then, and it is linted again if not (a Service in a later file selects it). A unit holds those pods
 * only, never its whole parse.
 */
class UnitLinter {
  private readonly run = new RunFacts();
  private readonly seen = { resources: 0, containers: 0 };
  /** A rule that throws, or a lint stopped at its work budget: an input error, in document order, after the unit's parse errors. */
  private readonly failures: { index: number; resource: Resource; kind: 'rule' | 'limit'; message: string }[] = [];

  constructor(
    private readonly engine: Engine,
    private readonly unit: LintUnit,
    private readonly options: CollectOptions,
    private readonly texts: TextInterner,
    private readonly linted: Linted,
  ) {}

  lint(inputErrors: InputError[]): void {
    const { unit, run, linted, seen } = this;
    const waiting: { index: number; result: LintResult; queries: readonly ServiceQuery[]; services: number }[] = [];
    let next = 0;
    do {
      // A file comes whole: its own Services are known before any of its documents is linted, and
      // after the unit's last file every Service is.
      for (let index = next; index < unit.documents.length; index++) run.addServicesOf(unit.documents[index]!);
      const final = unit.hasMoreFiles?.() !== true;
      for (; next < unit.documents.length; next++) {
        const document = unit.documents[next]!;
        if (final) {
          this.settleDocument(next, this.engine.lint([document], run));
          continue;
        }
        const queries = run.recordQueries();
        const result = this.engine.lint([document], run);
        run.stopRecording();
        if (queries.length === 0) this.settleDocument(next, result);
        else waiting.push({ index: next, result, queries, services: run.servicesAdded });
      }
    } while (unit.parseNext?.() === true);
    for (const { index, result, queries, services } of waiting) {
      const changed = run.servicesAdded !== services && run.answersChanged(queries);
      this.settleDocument(index, changed ? this.engine.lint([unit.documents[index]!], run) : result);
    }
    this.failures.sort((a, b) => a.index - b.index);
    for (const { resource, kind, message } of this.failures) {
      const where = resource.origin.file ?? describeResource(identityOf(resource.object));
      inputErrors.push({ file: where, kind, message });
    }
    linted.documentCount += unit.documents.length;
    linted.engineCounts.resources += seen.resources;
    linted.engineCounts.containers += seen.containers;
    if (this.options.release !== true) linted.unlisted.push(unit);
    if (unit.counts !== undefined) linted.counts = addCounts(linted.counts ?? { files: 0, resources: 0, containers: 0 }, unit.counts(seen));
  }

  private settleDocument(index: number, result: LintResult): void {
    const { options, linted, unit } = this;
    const shown = (severity: Severity) => severityRank(severity) >= severityRank(options.minSeverity);
    const release = options.release === true;
    const keyed = options.keyed === true;
    this.seen.resources += result.resources;
    this.seen.containers += result.containers;
    if (options.runtime === true) linkRuntimeFindings(result.findings, this.engine.rules);
    for (const problem of resultProblems(result)) this.failures.push({ index, ...problem });
    for (const finding of result.findings) {
      if (shown(finding.severity)) linted.located.push(this.texts.settle(finding, release, keyed));
      else linted.hidden++;
    }
    for (const finding of result.suppressed) if (shown(finding.severity)) linted.suppressed.push(this.texts.settle(finding, release, keyed));
    if (release) {
      if (options.listObjects === true) listObjects(linted.objects, unit.documents[index]!, unit.fileOrder?.[index], index);
      unit.documents[index] = { resources: [] };
      unit.forget?.(index);
    }
  }
}

/** An object with a pod spec, with where its file stood among the inputs and its document in its unit. */
interface ListedObject {
  object: ReportedObject;
  order: number;
  index: number;
}

function listObjects(objects: ListedObject[], document: LintDocument, order: number | undefined, index: number): void {
  for (const object of objectsOf(document)) objects.push({ object, order: order ?? 0, index });
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
