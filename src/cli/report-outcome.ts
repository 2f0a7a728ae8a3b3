// A lint outcome printed in the chosen format, and the exit code it means: what `lint` and `audit` share.
import { RULES } from '../../rules/index.js';
import { severityRank } from '../engine/finding.js';
import type { Severity } from '../engine/rule.js';
import type { LintOutcome } from '../lint/index.js';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatQuotesSource, reportChunks } from '../report/formats.js';
import { visible } from '../report/visible.js';
import { refuseReportLinks, writeFileAtomic } from '../source/atomic-write.js';
import { readManifestFile } from '../source/read/inputs.js';
import { TreeBounds, treeRootOf } from '../source/read/tree-root.js';
import { failingInputErrors, summarize, type BaselineReport, type ReportInput } from '../report/located.js';
import type { FailOn, ReportArguments } from './arguments.js';
import { useColor, type CommandIo } from './context.js';
import { VERSION } from './version.js';

export interface ReportContext {
  args: ReportArguments;
  io: CommandIo;
  /** The ids of the rules that ran, in registry order. */
  enabledRules: string[];
  /** Where the report goes; when it is io.stdout, each chunk waits for stdout to take the last (io.stdoutWritten). */
  report: (text: string) => void;
  /** The baseline's part of the run, when one is used (lint). */
  baseline?: BaselineReport | undefined;
  /** What reading the inputs noticed (stderr has said it): the JSON report lists it too. */
  notices?: readonly string[] | undefined;
  /** For audit: the cluster, namespaces and evidence read. */
  auditScope?: ReportInput['auditScope'];
}

/** Prints the report; 2 with input errors, 1 with findings at or above --fail-on, else 0. */
export async function reportOutcome(outcome: LintOutcome, context: ReportContext): Promise<{ code: number; input: ReportInput }> {
  const { args, io } = context;
  const input: ReportInput = {
    findings: outcome.findings,
    objects: outcome.objects,
    enabledRules: context.enabledRules,
    failOn: args.failOn,
    sourceLink: githubSourceLink(io.env),
    sourceText: [args.format, ...args.reports.map((report) => report.format)].some(formatQuotesSource) ? sourceTextIn(io.cwd) : undefined,
    suppressed: outcome.suppressed,
    inputErrors: outcome.inputErrors,
    summary: summarize(outcome.findings, outcome.counts),
    hidden: outcome.hidden,
    rules: RULES,
    showSuppressed: args.showSuppressed,
    color: useColor(args.color, io),
    columns: io.isTty ? io.columns : undefined,
    toolVersion: VERSION,
    generatedAt: reportTime(io.env),
    baseline: context.baseline,
    outsideInputs: outcome.outsideInputs,
    changedSince: outcome.changedSince,
    notices: context.notices,
    auditScope: context.auditScope,
  };
  // A report written to a slow pipe is not held whole in memory.
  const written = context.report === io.stdout ? io.stdoutWritten : undefined;
  for (const chunk of await reportChunks(args.format, input)) {
    context.report(chunk);
    await written?.();
  }
  // More formats of the same run (--report), each written whole and atomically: a report a CI step
  // reads is never half a file. One that cannot be written is an input error of the run.
  const tree = args.reports.length > 0 ? treeRootOf(io.cwd) : undefined;
  for (const { format, file } of args.reports) {
    try {
      // A file is no terminal: no colour, no width.
      writeFileAtomic(resolve(io.cwd, file), Buffer.from([...(await reportChunks(format, { ...input, color: false, columns: undefined }))].join('')), {
        report: { tree: tree! },
      });
    } catch (error) {
      io.stderr(`probe-lint: cannot write the ${format} report to ${visible(file)}: ${visible((error as Error).message)}\n`);
      return { code: 2, input };
    }
  }
  if (failingInputErrors(outcome.inputErrors).length > 0) return { code: 2, input };
  return { code: outcome.findings.some((finding) => failsOn(finding.severity, args.failOn)) ? 1 : 0, input };
}

/**
 * The text of a file a finding is located in, for the formats that quote it: read again (the run let
 * its objects go), only inside the tree of the working directory, as a manifest is read (a regular
 * file, bounded, decoded); anything else is not quoted.
 */
function sourceTextIn(cwd: string): (file: string) => string | undefined {
  const tree = new TreeBounds([treeRootOf(cwd)]);
  return (file) => {
    const path = resolve(cwd, file);
    if (!tree.contains(path)) return undefined;
    const read = readManifestFile(path);
    return 'problem' in read ? undefined : read.text;
  };
}

/**
 * Before anything is read: every --report path is cleared, so that a run that stops early (exit 2)
 * leaves no file for a CI step to upload — a pull request's own committed `probe-lint.sarif` would
 * otherwise be taken as this run's — and a path that is a link, or leads out of the work tree, is
 * refused by name. Returns the exit code of a refusal, else undefined.
 */
export function clearReportPaths(reports: ReportArguments['reports'], io: CommandIo): number | undefined {
  const tree = treeRootOf(io.cwd);
  for (const { format, file } of reports) {
    const path = resolve(io.cwd, file);
    try {
      refuseReportLinks(path, tree);
      rmSync(path, { force: true });
    } catch (error) {
      io.stderr(`probe-lint: cannot write the ${format} report to ${visible(file)}: ${visible((error as Error).message)}\n`);
      return 2;
    }
  }
  return undefined;
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
