// The baseline in a lint run: which file (--baseline, the config's `baseline`, else
// .probe-lint-baseline.json here when it exists), read through the same boundary as a report
// (never through a link, never out of the work tree), and what it does to the outcome: the findings
// it holds are set apart, the ones it no longer finds are fixed; --write-baseline records today's,
// --prune-baseline drops the fixed ones. Returns the outcome the report is made of.
import { existsSync } from 'node:fs';
import type { ProbeLintConfig } from '../engine/config.js';
import type { InputScope } from '../lint/input-scope.js';
import type { LintOutcome } from '../lint/index.js';
import { baselineOf, BaselineError, baselineText, parseBaseline, prunedBaseline, splitByBaseline, type Baseline } from '../report/baseline.js';
import type { BaselineReport } from '../report/located.js';
import { visible } from '../report/visible.js';
import { refuseReportLinks, writeFileAtomic } from '../source/atomic-write.js';
import { readManifestFile } from '../source/read/inputs.js';
import { shownPath } from '../source/read/shown-path.js';
import { treeRootOf } from '../source/read/tree-root.js';
import type { LintArguments } from './arguments.js';
import { baselinePath } from './baseline-path.js';
import type { CommandIo } from './context.js';

export type BaselineStep = { outcome: LintOutcome; baseline: BaselineReport | undefined } | { code: number };

export function applyBaseline(outcome: LintOutcome, args: LintArguments, config: ProbeLintConfig, io: CommandIo, scope: InputScope): BaselineStep {
  const path = baselinePath(args, config, io.cwd);
  if (path === undefined) return { outcome, baseline: undefined };
  const shown = visible(shownPath(path));
  const tree = treeRootOf(io.cwd);
  try {
    refuseReportLinks(path, tree);
  } catch (error) {
    io.stderr(`probe-lint: cannot use the baseline ${shown}: ${visible((error as Error).message)}\n`);
    return { code: 2 };
  }
  if (args.writeBaseline && args.changedSince !== undefined) {
    io.stderr('probe-lint: --write-baseline records every finding, and --changed-since shows only those of the change: use one or the other\n');
    return { code: 2 };
  }
  // Findings left out of a file's rendering would be missing from the record, and new later.
  if (args.writeBaseline && (outcome.outsideInputs ?? 0) > 0) {
    io.stderr(
      `probe-lint: --write-baseline records every finding of what is rendered, and ${outcome.outsideInputs} are in files not named: give it their directory (e.g. .)\n`,
    );
    return { code: 2 };
  }
  if (args.writeBaseline) {
    // A baseline of a run that could not read everything would make the unread findings new later.
    if (outcome.inputErrors.length > 0) {
      io.stderr(`probe-lint: the baseline ${shown} is not written: ${outcome.inputErrors.length} input error(s) below; fix them first\n`);
      return { outcome, baseline: undefined };
    }
    const written = baselineOf(outcome.findings);
    if (!write(path, written, shown, tree, io)) return { code: 2 };
    io.stderr(`probe-lint: wrote ${outcome.findings.length} finding(s) to the baseline ${shown}; commit it, and later runs fail only on new ones\n`);
    return split(outcome, written, shown, scope);
  }
  // Named, or to be pruned: it must be there.
  const read = readBaseline(path, shown, args.baseline !== undefined || config.baseline !== undefined || args.pruneBaseline, io);
  if (read === 'absent') return { outcome, baseline: undefined };
  if (read === 'refused') return { code: 2 };
  const step = split(outcome, read, shown, scope);
  if (args.pruneBaseline && 'outcome' in step && step.baseline !== undefined) {
    const fixed = step.baseline.fixed;
    if (!write(path, prunedBaseline(read, fixed), shown, tree, io)) return { code: 2 };
    io.stderr(`probe-lint: pruned ${fixed.reduce((sum, entry) => sum + entry.count, 0)} fixed finding(s) from the baseline ${shown}\n`);
  }
  return step;
}

/** A run given one file alone sees only that file's findings: the entries of other files are neither found nor fixed. */
function split(outcome: LintOutcome, baseline: Baseline, shown: string, scope: InputScope): BaselineStep {
  const { fresh, baselined, fixed } = splitByBaseline(outcome.findings, baseline);
  const inScope = fixed.filter((entry) => scope.includes(entry.file ?? undefined));
  return { outcome: { ...outcome, findings: fresh }, baseline: { file: shown, baselined, fixed: inScope } };
}

/** The baseline, 'absent' when an implicit one is not there, 'refused' (said) when it cannot be used. */
function readBaseline(path: string, shown: string, named: boolean, io: CommandIo): Baseline | 'absent' | 'refused' {
  if (!named && !existsSync(path)) return 'absent';
  const read = readManifestFile(path);
  if ('problem' in read) {
    io.stderr(`probe-lint: cannot use the baseline ${shown}: ${visible(read.problem)}; write one with --write-baseline\n`);
    return 'refused';
  }
  try {
    return parseBaseline(read.text, shown);
  } catch (error) {
    if (!(error instanceof BaselineError)) throw error;
    io.stderr(`probe-lint: cannot use the baseline: ${visible(error.message)}\n`);
    return 'refused';
  }
}

function write(path: string, baseline: Baseline, shown: string, tree: string, io: CommandIo): boolean {
  try {
    writeFileAtomic(path, Buffer.from(baselineText(baseline)), { report: { tree } });
    return true;
  } catch (error) {
    io.stderr(`probe-lint: cannot write the baseline ${shown}: ${visible((error as Error).message)}\n`);
    return false;
  }
}
