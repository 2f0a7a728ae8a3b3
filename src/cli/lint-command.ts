import { linkRuntimeFindings, runtimeFirst } from '../engine/runtime-causes.js';
import { RULES } from '../../rules/index.js';
import { Engine, ruleFailureMessage, type LintResult } from '../engine/engine.js';
import { severityRank } from '../engine/finding.js';
import type { Severity } from '../engine/rule.js';
import type { LintDocument } from '../model/document.js';
import { findPodSites } from '../model/pod-site.js';
import { describeResource, identityOf } from '../model/resource.js';
import { formatReport } from '../report/formats.js';
import { compareLocated, inputErrorOf, locate, summarize, withoutRepeats, type InputError, type ReportInput, type SummaryCounts } from '../report/located.js';
import { documentsOfFile } from '../source/file-documents.js';
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
  const documents: LintDocument[] = [];
  for (const file of files) {
    const read = documentsOfFile(file);
    if (read.problem !== undefined) inputErrors.push(inputErrorOf(read.problem));
    for (const document of read.documents) documents.push(document);
  }
  const everyInputIsStdin = args.paths.every((path) => path === '-');
  const failIfNoObjects = args.failIfNoObjects ?? everyInputIsStdin;
  return lintAndReport(engine, documents, {
    inputErrors,
    files: files.length,
    args,
    io,
    report,
    failIfNoObjects,
    counts: (seen) => inputCounts(files, documents, seen),
  });
}

/** Runs the engine over documents, prints the report in the chosen format, returns the exit code. */
export function lintAndReport(
  engine: Engine,
  documents: LintDocument[],
  context: {
    inputErrors: InputError[];
    files: number;
    args: ReportArguments;
    io: CommandIo;
    report: (text: string) => void;
    failIfNoObjects: boolean;
    /** audit with runtime evidence: runtime findings linked to their likely causes, and first. */
    runtime?: boolean;
    /** What the summary counts, from what the engine saw (lint: files, charts, renderings, objects once each); else the files and the engine's counts. */
    counts?: (engine: { resources: number; containers: number }) => SummaryCounts;
    /** Sees what was reported (audit --apply-reports writes it into the cluster too). */
    onReport?: (input: ReportInput) => void;
  },
): number {
  const { inputErrors, args, io } = context;
  const result: LintResult = engine.lint(documents);
  if (context.runtime === true) linkRuntimeFindings(result.findings, engine.rules);
  for (const failure of result.failures) {
    const where = failure.resource.origin.file ?? describeResource(identityOf(failure.resource.object));
    inputErrors.push({ file: where, message: ruleFailureMessage(failure) });
  }
  if (result.resources === 0 && context.failIfNoObjects && inputErrors.length === 0) {
    inputErrors.push({
      file: context.files === 1 && documents.length === 0 ? '-' : '(input)',
      message: 'no Kubernetes objects found (was the input empty, or did the command that produced it fail?)',
    });
  }
  const shown = (severity: Severity) => severityRank(severity) >= severityRank(args.minSeverity);
  const visible = result.findings.filter((finding) => shown(finding.severity));
  const sorted = withoutRepeats(visible.map(locate)).sort(compareLocated);
  const findings = context.runtime === true ? runtimeFirst(sorted, engine.rules) : sorted;
  const input: ReportInput = {
    findings,
    // The objects with pod specs: the ones the rules are about (a finding on another object gets its test case too).
    objects: () =>
      documents.flatMap((document) =>
        document.resources
          .filter((resource) => findPodSites(resource).length > 0)
          .map((resource) => {
            const identity = identityOf(resource.object);
            return { file: resource.origin.file, name: describeResource(identity), identity };
          }),
      ),
    enabledRules: engine.enabledRuleIds,
    failOn: args.failOn,
    sourceLink: githubSourceLink(io.env),
    suppressed: result.suppressed
      .filter((finding) => shown(finding.severity))
      .map(locate)
      .sort(compareLocated),
    inputErrors,
    summary: summarize(
      findings,
      context.counts?.({ resources: result.resources, containers: result.containers }) ?? {
        files: context.files,
        resources: result.resources,
        containers: result.containers,
      },
    ),
    hidden: result.findings.length - visible.length,
    rules: RULES,
    showSuppressed: args.showSuppressed,
    color: useColor(args.color, io),
    columns: io.isTty ? io.columns : undefined,
    toolVersion: VERSION,
    generatedAt: reportTime(io.env),
  };
  context.report(formatReport(args.format, input));
  context.onReport?.(input);
  if (inputErrors.length > 0) return 2;
  return findings.some((finding) => failsOn(finding.severity, args.failOn)) ? 1 : 0;
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
