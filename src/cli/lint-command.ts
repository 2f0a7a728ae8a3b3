// `probe-lint PATH...`: the lint session over the paths, its findings in the chosen format.
import { RULES } from '../../rules/index.js';
import { formatFingerprints, formatListsObjects, formatReadsObjects } from '../report/formats.js';
import { visible } from '../report/visible.js';
import type { LintArguments } from './arguments.js';
import { cliClusterFacts, commandProgress, loadConfigOrReport, withRuleSelection, readingSession, type CommandIo } from './context.js';
import { bothScopes, changeScope, inputScope, type InputScope } from '../lint/input-scope.js';
import type { LintOutcome } from '../lint/index.js';
import { baselineWanted } from './baseline-path.js';
import { policedInputErrors } from '../lint/input-error-policy.js';
import { clearReportPaths, reportOutcome } from './report-outcome.js';

/** Returns the exit code. */
export async function runLint(args: LintArguments, io: CommandIo): Promise<number> {
  const refused = clearReportPaths(args.reports, io);
  if (refused !== undefined) return refused;
  // What the change touches is known before anything is read: a revision git does not have stops the run.
  // Imported only then: node:child_process brings node:net, which a plain lint never loads.
  const change =
    args.changedSince === undefined ? undefined : (await import('../source/read/changed-files.js')).changedFilesSince(args.changedSince, io.cwd, io.env);
  if (change !== undefined && 'problem' in change) {
    io.stderr(`probe-lint: ${visible(change.problem)}\n`);
    return 2;
  }
  const loaded = await loadConfigOrReport(args.config, io);
  if (loaded === undefined) return 2;
  const config = withRuleSelection(loaded, args.enable, args.disable);
  const cluster = cliClusterFacts(args, config);
  const progress = await commandProgress(io, args.noProgress);
  const session = readingSession({ rules: RULES, config, cluster, strict: args.strict }, args, loaded, io, progress);
  const inputs = await session.read(args.paths);
  for (const notice of inputs.notices) progress.stderr(`probe-lint: ${visible(notice)}\n`);
  // With fixes, stdout carries the fixed document or the diff, and the report moves to stderr.
  let report = io.stdout;
  if (args.fix || args.fixDryRun) {
    report = io.stderr;
    // The fixing code (the yaml package, JSON Patch, diff) loads only when fixing.
    (await import('./apply-fixes.js')).applyFixes(inputs, session, args.fixTypes, args.fixDryRun, { ...io, stderr: progress.stderr }, progress.listener);
  }
  const formats = [args.format, ...args.reports.map((report) => report.format)];
  const usesBaseline = baselineWanted(args, config, io.cwd);
  const outcome = session.lint(inputs, {
    minSeverity: args.minSeverity,
    listObjects: formats.some(formatListsObjects),
    release: !formats.some(formatReadsObjects),
    keyed: formats.some(formatFingerprints) || usesBaseline,
    failIfNoObjects: args.failIfNoObjects ?? args.paths.every((path) => path === '-'),
  });
  // The report starts on a clean line.
  progress.end();
  const policed = policedInputErrors(outcome.inputErrors, config);
  if (policed.ignored > 0)
    io.stderr(
      `probe-lint: ${policed.ignored} input ${policed.ignored === 1 ? 'error' : 'errors'} that only the network could fix not shown (config inputErrors.network: ignore)\n`,
    );
  const named = inputScope(args.paths, io.cwd);
  const ofInputs = scopedOutcome({ ...outcome, inputErrors: policed.inputErrors }, named);
  const scoped = { ...ofInputs.outcome, ...(ofInputs.left > 0 ? { outsideInputs: ofInputs.left } : {}) };
  let scope = named;
  if (change !== undefined) {
    scope = bothScopes(named, changeScope(change.files, io.cwd));
    const ofChange = scopedOutcome(scoped, scope);
    Object.assign(scoped, ofChange.outcome, { changedSince: { ref: change.ref, base: change.base, files: change.files.length, outside: ofChange.left } });
  }
  // The baseline code (and the crypto of its keys) loads only for a run that has one.
  const step = usesBaseline
    ? (await import('./baseline-step.js')).applyBaseline(scoped, args, config, { ...io, stderr: progress.stderr }, scope)
    : { outcome: scoped, baseline: undefined };
  if ('code' in step) return step.code;
  return (await reportOutcome(step.outcome, { args, io, enabledRules: session.enabledRuleIds, report, baseline: step.baseline, notices: inputs.notices })).code;
}

/** The outcome with only the findings located in the scope (what was named, what changed), and how many were left out. */
function scopedOutcome(outcome: LintOutcome, scope: InputScope): { outcome: LintOutcome; left: number } {
  if (!scope.narrows) return { outcome, left: 0 };
  const findings = outcome.findings.filter((finding) => scope.includes(finding.file));
  if (findings.length === outcome.findings.length) return { outcome, left: 0 };
  return {
    outcome: { ...outcome, findings, suppressed: outcome.suppressed.filter((finding) => scope.includes(finding.file)) },
    left: outcome.findings.length - findings.length,
  };
}
