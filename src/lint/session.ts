// The one way from inputs to located findings. Every door — `lint`, `timeline`, `--fix`, `audit`, the
// language server, the webhook's reviews, the generator and the tests — goes through a session, so each
// reads a directory, stdin, an editor's buffer or a cluster's objects the same way: inputs classified
// once (manifest, Go template, chart, kustomization, YAML that is not Kubernetes), charts and
// kustomizations rendered in the sandbox, files parsed unit by unit, the engine run, findings located
// and each reported once. A session never prints: the commands format what it returns.
import { resolve } from 'node:path';
import { Engine, type EngineOptions } from '../engine/engine.js';
import type { AnyRule } from '../engine/rule.js';
import type { FindingsOfSource } from '../fix/fix-source.js';
import type { ProgressListener } from '../model/progress.js';
import type { KubeObject } from '../model/resource.js';
import { inputErrorOf, type InputError, type LocatedFinding } from '../report/located.js';
import type { ContainerTimeline } from '../report/timeline.js';
import type { PathExclusion } from '../source/read/excluded-paths.js';
import { documentsOfFile, documentsOfSource } from '../source/file-documents.js';
import type { InputFile, InputProblem } from '../source/read/inputs.js';
import { readInputs, type RenderOptions } from '../source/read-inputs.js';
import { discover } from '../source/read/discover.js';
import { lintAdmitted, type AdmissionLimits, type AdmittedLint } from './admitted.js';
import { collectFindings, type CollectOptions, type LintOutcome } from './collect.js';
import { containerTimelines } from './timelines.js';
import { simulateUnits } from './simulations.js';
import type { SimulatedWorkload } from '../model/fleet.js';
import type { ScenarioPart } from '../model/fleet-scenario.js';
import { objectsUnit, parsedUnits, type LintUnit } from './units.js';
import { lintText, type TextLint } from './text.js';

export interface LintSessionOptions {
  /** How charts and kustomizations are rendered; without it they are skipped, one notice each. */
  render?: RenderOptions;
  /** Paths never linted (the config's exclude, --exclude). */
  exclusion?: PathExclusion;
  /** The tree a chart, a kustomization or a linked manifest may read (--root); by default each input's own. */
  root?: string;
  /** Files named that hold no object are passed over, as in a directory walk (--only-manifests). */
  onlyManifests?: boolean;
  /** What "-" reads. */
  readStdin?: () => string | Buffer;
  env?: Readonly<Record<string, string | undefined>>;
  /** Told how the long work goes: rendering, then linting (the CLI's progress line on a terminal). */
  progress?: ProgressListener;
}

/** The inputs of a run, classified and rendered, not yet parsed. */
export interface LintInputs {
  files: InputFile[];
  /** What could not be read, rendered or parsed; parsing adds to it as units go by. */
  inputErrors: InputError[];
  /** What the user should know that is not an error (a chart skipped, a rendering dropped and why). */
  notices: string[];
}

const NO_RENDERING: RenderOptions = { helm: undefined, kustomize: undefined, values: [], set: [], enabled: false };

/** The rules and what the engine judges with (config, cluster facts, strictness, runtime evidence). */
export interface EngineSettings extends EngineOptions {
  rules: readonly AnyRule[];
}

export class LintSession {
  readonly engine: Engine;
  private strictSession: LintSession | undefined;

  constructor(
    settings: EngineSettings | Engine,
    private readonly options: LintSessionOptions = {},
  ) {
    this.engine = settings instanceof Engine ? settings : new Engine(settings.rules, settings);
  }

  /** The ids of the rules that run, in registry order. */
  get enabledRuleIds(): string[] {
    return this.engine.enabledRuleIds;
  }

  /** Classifies the paths ("-" is stdin) and renders the charts and kustomizations among them. */
  async read(paths: readonly string[]): Promise<LintInputs> {
    const read = await readInputs(paths, {
      readStdin: this.options.readStdin ?? (() => ''),
      env: this.options.env ?? {},
      render: this.options.render ?? NO_RENDERING,
      ...(this.options.exclusion !== undefined ? { exclusion: this.options.exclusion } : {}),
      ...(this.options.root !== undefined ? { root: this.options.root } : {}),
      onlyManifests: this.options.onlyManifests === true,
      ...(this.options.progress !== undefined ? { progress: this.options.progress } : {}),
    });
    return { files: read.files, inputErrors: read.problems.map(inputErrorOf), notices: read.notices };
  }

  /** The inputs' deployment units, parsed as each comes; what does not parse is added to the inputs' errors. */
  units(inputs: LintInputs, release = false): Generator<LintUnit> {
    return parsedUnits(inputs.files, inputs.inputErrors, release);
  }

  /** Every finding of the inputs, located, once each, in report order. */
  lint(inputs: LintInputs, options: Omit<CollectOptions, 'files'>): LintOutcome {
    return collectFindings(this.engine, this.counted(this.units(inputs, options.release === true), inputs, 'linting {count} files'), inputs.inputErrors, {
      ...options,
      files: inputs.files.length,
    });
  }

  /** The units as they go, told to the progress listener file by file (a unit is a directory's files, or one rendering). */
  private *counted(units: Iterable<LintUnit>, inputs: LintInputs, task: string): Generator<LintUnit> {
    const progress = this.options.progress;
    if (progress === undefined) {
      yield* units;
      return;
    }
    const total = inputs.files.length;
    let done = 0;
    for (const unit of units) {
      done += unit.files ?? 0;
      progress({ task, done: Math.min(done, total), total });
      yield unit;
    }
  }

  /** The objects of a cluster (audit). */
  lintObjects(objects: readonly KubeObject[], options: Omit<CollectOptions, 'files'>): LintOutcome {
    return collectFindings(this.engine, [objectsUnit(objects)], [], { ...options, files: 0 });
  }

  /** When the kubelet acts on each container of the inputs (only `container`'s, when given). */
  timelines(inputs: LintInputs, container?: string): ContainerTimeline[] {
    return containerTimelines(this.engine, this.counted(this.units(inputs), inputs, 'reading {count} files'), container);
  }

  /** Each serving workload of the inputs through a scenario (probe-lint simulate). */
  simulate(inputs: LintInputs, parts: readonly ScenarioPart[]): { workloads: SimulatedWorkload[]; untouched: number } {
    return simulateUnits(this.counted(this.units(inputs), inputs, 'simulating {count} files'), parts);
  }

  /** This session disregarding `probe-lint.dev/ignore` annotations (the webhook judges an old object so). */
  asStrict(): LintSession {
    const strict = this.engine.asStrict();
    return strict === this.engine ? this : (this.strictSession ??= new LintSession(strict, this.options));
  }

  /** One object under admission, within the limits. */
  lintAdmitted(object: unknown, limits: AdmissionLimits): AdmittedLint {
    return lintAdmitted(this.engine, object, limits);
  }

  /**
   * How --fix reads a file after each pass: as this session reads it (fixSourceText in src/fix makes
   * the fixes; it loads only when fixing, so a lint does not pay for the YAML editor).
   */
  findingsOfSource(path: string): FindingsOfSource {
    return (source) => this.engine.lint(documentsOfSource({ path, text: source.text }, source).documents).findings;
  }

  /** A text an editor holds (saved or not), read as the file it will be. */
  lintText(path: string, text: string): TextLint {
    return lintText(this.engine, documentsOfFile({ path, text }));
  }

  /** The charts and kustomizations that own a file, absolute; empty for a plain manifest. */
  ownersOf(path: string): string[] {
    const found = discover([path]);
    return [...found.charts.map((chart) => resolve(chart.directory)), ...found.kustomizations.map((unit) => resolve(unit.directory))].sort();
  }

  /** Renders what owns `path` and lints it: the findings by the absolute path of the file they point at. */
  async lintOwnerOf(path: string): Promise<OwnerLint> {
    const inputs = await this.read([path]);
    const outcome = this.lint(inputs, { minSeverity: 'info' });
    const findings = new Map<string, LocatedFinding[]>();
    for (const finding of outcome.findings) {
      if (finding.file === undefined) continue;
      const file = resolve(finding.file);
      (findings.get(file) ?? findings.set(file, []).get(file)!).push(finding);
    }
    const problems = outcome.inputErrors.map((error) => ({ ...problemOf(error), path: resolve(error.file) }));
    return { findings, problems, notices: inputs.notices };
  }
}

export interface OwnerLint {
  /** Findings by the absolute path of the file they point at. */
  findings: Map<string, LocatedFinding[]>;
  /** Problems rendering or reading, with the absolute path they name. */
  problems: InputProblem[];
  notices: string[];
}

function problemOf(error: InputError): InputProblem {
  return { path: error.file, kind: error.kind, message: error.message, ...(error.line !== undefined ? { line: error.line, column: error.column ?? 1 } : {}) };
}
