// --fix and --fix-dry-run: each file fixed in memory, then written safely, diffed, or printed.
import type { Engine } from '../engine/engine.js';
import { fixSourceText } from '../fix/fix-source.js';
import { unifiedDiff, writeFixedFile } from '../fix/write-fixes.js';
import type { InputError } from '../report/located.js';
import type { InputFile } from '../source/inputs.js';
import type { LintArguments } from './arguments.js';
import type { CommandIo } from './context.js';

/** Fixes each file's text in place in `files`, and writes, diffs or prints it. */
export function applyFixes(
  files: InputFile[],
  engine: Engine,
  kinds: LintArguments['fixTypes'],
  dryRun: boolean,
  io: CommandIo,
  inputErrors: InputError[],
): void {
  let fixedProblems = 0;
  let fixedFiles = 0;
  for (const file of files) {
    // Rendered charts and kustomizations are not files the user edits: their findings point at the
    // sources instead. Rendered text on stdin is fixed and printed like any stream, never swallowed.
    if (file.rendered !== undefined && file.path !== '-') continue;
    const outcome = fixSourceText(file.path, file.text, engine, kinds);
    if (outcome.problem) inputErrors.push({ file: file.path, message: outcome.problem });
    if (file.path === '-' && !dryRun) io.stdout(outcome.text);
    if (!outcome.changed) continue;
    if (dryRun) io.stdout(unifiedDiff(file.path, file.text, outcome.text));
    else if (file.path !== '-') {
      try {
        writeFixedFile(file.path, file.text, outcome.text, file.encoding);
      } catch (error) {
        inputErrors.push({ file: file.path, message: `not fixed: cannot write the file: ${(error as Error).message}` });
        continue;
      }
    }
    fixedProblems += outcome.fixed.length;
    fixedFiles++;
    file.text = outcome.text;
  }
  const verb = dryRun ? 'would fix' : 'fixed';
  io.stderr(`probe-lint: ${verb} ${fixedProblems} ${fixedProblems === 1 ? 'problem' : 'problems'} in ${fixedFiles} ${fixedFiles === 1 ? 'file' : 'files'}\n`);
}
