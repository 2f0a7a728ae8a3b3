import { RULES } from '../../rules/index.js';
import type { ClusterFacts } from '../engine/cluster-facts.js';
import { describeResource, identityOf } from '../model/resource.js';
import { clusterFactsFrom, ConfigError, findConfigFile, loadConfigFile, type ProbeLintConfig } from '../engine/config.js';
import { Engine, type LintDocument } from '../engine/engine.js';
import { severityRank } from '../engine/finding.js';
import { formatGithub } from '../report/github.js';
import { formatJson } from '../report/json.js';
import { compareLocated, locate, summarize, type InputError, type ReportInput } from '../report/located.js';
import { formatSarif } from '../report/sarif.js';
import { formatText } from '../report/text.js';
import { lintDocumentsOf } from '../source/documents.js';
import { readInputs, type InputFile } from '../source/inputs.js';
import { fixSourceText } from '../fix/fix-source.js';
import { unifiedDiff, writeFileAtomically } from '../fix/write-fixes.js';
import { SourceFile } from '../source/source-file.js';
import type { FailOn, Format, LintArguments } from './arguments.js';
import { VERSION } from './version.js';

export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readStdin: () => string;
  isTty: boolean;
}

const FORMATTERS: Record<Format, (input: ReportInput) => string> = {
  text: formatText,
  json: formatJson,
  sarif: formatSarif,
  github: formatGithub,
};

/** Loads the config named on the command line, or the nearest .probe-lint.yaml, or none. */
export function resolveConfig(explicit: string | undefined, cwd: string): ProbeLintConfig {
  const file = explicit ?? findConfigFile(cwd);
  return file === undefined ? {} : loadConfigFile(file);
}


/** Loads the config, or prints why it cannot be used; undefined means exit 2. */
export function loadConfigOrReport(file: string | undefined, io: CommandIo): ProbeLintConfig | undefined {
  try {
    return resolveConfig(file, process.cwd());
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`probe-lint: bad configuration\n${error.message}\n`);
      return undefined;
    }
    throw error;
  }
}

/**
 * Cluster facts for a CLI run: --pods-per-node, else one attempt (with the guard's deadline) to
 * read density from --kubeconfig's cluster, else the config; a failed attempt is a warning.
 */
export async function cliClusterFacts(args: Pick<LintArguments, 'podsPerNode' | 'kubeconfig' | 'context'>, config: ProbeLintConfig, io: CommandIo): Promise<ClusterFacts> {
  const offline = clusterFactsFrom(config, args.podsPerNode);
  if (args.podsPerNode !== undefined || args.kubeconfig === undefined) return offline;
  try {
    const { fetchClusterFactsOnce } = await import('../cluster/cluster-access.js');
    const { KubeClient, loadKubeConfig } = await import('../cluster/kube-client.js');
    return await fetchClusterFactsOnce(new KubeClient(loadKubeConfig(args.kubeconfig, args.context)), config);
  } catch (error) {
    io.stderr(`probe-lint: warning: cannot read cluster density from ${args.kubeconfig}: ${(error as Error).message}; linting without it\n`);
    return offline;
  }
}

/** `probe-lint PATH...`: returns the exit code. */
export async function runLint(args: LintArguments, io: CommandIo): Promise<number> {
  const config = loadConfigOrReport(args.config, io);
  if (config === undefined) return 2;
  const engine = new Engine(RULES, { config, cluster: await cliClusterFacts(args, config, io), strict: args.strict });

  const { files, problems } = readInputs(args.paths, io.readStdin);
  const inputErrors: InputError[] = problems.map((problem) => ({ file: problem.path, message: `cannot read: ${problem.message}` }));
  // With fixes, stdout carries the fixed document or the diff, and the report moves to stderr.
  let report = io.stdout;
  if (args.fix || args.fixDryRun) {
    report = io.stderr;
    applyFixes(files, engine, args.fixDryRun, io, inputErrors);
  }
  const documents: LintDocument[] = [];
  for (const file of files) {
    const source = new SourceFile(file.path, file.text);
    if (source.error) inputErrors.push({ ...source.error, message: `invalid YAML: ${source.error.reason}` });
    documents.push(...lintDocumentsOf(source));
  }
  return lintAndReport(engine, documents, { inputErrors, files: files.length, args, io, report });
}

/** Runs the engine over documents, prints the report in the chosen format, returns the exit code. */
export function lintAndReport(
  engine: Engine,
  documents: LintDocument[],
  context: { inputErrors: InputError[]; files: number; args: Pick<LintArguments, 'format' | 'failOn' | 'showSuppressed' | 'color'>; io: CommandIo; report: (text: string) => void },
): number {
  const { inputErrors, args, io } = context;
  const result = engine.lint(documents);
  for (const failure of result.failures) {
    const where = failure.resource.origin.file ?? describeResource(identityOf(failure.resource.object));
    io.stderr(`probe-lint: rule ${failure.rule} failed on ${where}: ${(failure.error as Error)?.stack ?? failure.error}\n`);
  }
  const findings = result.findings.map(locate).sort(compareLocated);
  const input: ReportInput = {
    findings,
    suppressed: result.suppressed.map(locate).sort(compareLocated),
    inputErrors,
    summary: summarize(findings, { files: context.files, resources: result.resources, containers: result.containers }),
    rules: RULES,
    showSuppressed: args.showSuppressed,
    color: args.color ?? (io.isTty && process.env.NO_COLOR === undefined),
    toolVersion: VERSION,
  };
  context.report(FORMATTERS[args.format](input));
  if (inputErrors.length > 0 || result.failures.length > 0) return 2;
  return findings.some((finding) => failsOn(finding.severity, args.failOn)) ? 1 : 0;
}

/** Fixes each file's text in place in `files`, and writes, diffs or prints it. */
function applyFixes(files: InputFile[], engine: Engine, dryRun: boolean, io: CommandIo, inputErrors: InputError[]): void {
  let fixedProblems = 0;
  let fixedFiles = 0;
  for (const file of files) {
    const outcome = fixSourceText(file.path, file.text, engine);
    if (outcome.problem) inputErrors.push({ file: file.path, message: outcome.problem });
    if (file.path === '-' && !dryRun) io.stdout(outcome.text);
    if (!outcome.changed) continue;
    fixedProblems += outcome.fixed.length;
    fixedFiles++;
    if (dryRun) io.stdout(unifiedDiff(file.path, file.text, outcome.text));
    else if (file.path !== '-') {
      try {
        writeFileAtomically(file.path, outcome.text);
      } catch (error) {
        inputErrors.push({ file: file.path, message: `cannot write the fixed file: ${(error as Error).message}` });
        continue;
      }
    }
    file.text = outcome.text;
  }
  const verb = dryRun ? 'would fix' : 'fixed';
  io.stderr(`probe-lint: ${verb} ${fixedProblems} ${fixedProblems === 1 ? 'problem' : 'problems'} in ${fixedFiles} ${fixedFiles === 1 ? 'file' : 'files'}\n`);
}

function failsOn(severity: Parameters<typeof severityRank>[0], failOn: FailOn): boolean {
  return failOn !== 'never' && severityRank(severity) >= severityRank(failOn);
}
