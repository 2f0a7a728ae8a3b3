// --fix and --fix-dry-run: each file fixed in memory by the lint session, then written safely, diffed, or printed.
import { fixSourceText } from '../fix/fix-source.js';
import { unifiedDiff, writeFixedFile } from '../fix/write-fixes.js';
import type { LintInputs, LintSession } from '../lint/index.js';
import type { ProgressListener } from '../model/progress.js';
import { InputUnreadable, type InputFile } from '../source/read/inputs.js';
import type { LintArguments } from './arguments.js';
import type { CommandIo } from './context.js';

/** Fixes each file's text in place in `inputs`, and writes, diffs or prints it; what cannot be written is an input error. */
export function applyFixes(
  inputs: LintInputs,
  session: LintSession,
  kinds: LintArguments['fixTypes'],
  dryRun: boolean,
  io: CommandIo,
  progress?: ProgressListener,
): void {
  let fixedProblems = 0;
  let fixedFiles = 0;
  for (const [index, file] of inputs.files.entries()) {
    progress?.({ task: dryRun ? 'checking fixes in {count} files' : 'fixing {count} files', done: index, total: inputs.files.length, current: file.path });
    // Rendered charts and kustomizations are not files the user edits: their findings point at the
    // sources instead. Rendered text on stdin is fixed and printed like any stream, never swallowed.
    if (file.rendered !== undefined && file.path !== '-') continue;
    const text = readableText(file);
    // A file whose text cannot be read is not fixed; the lint says why when its unit comes.
    if (text === undefined) continue;
    const outcome = fixSourceText(file.path, text, session.findingsOfSource(file.path), kinds);
    if (outcome.problem) inputs.inputErrors.push({ file: file.path, kind: 'fix', message: outcome.problem });
    if (file.path === '-' && !dryRun) io.stdout(outcome.text);
    if (!outcome.changed) continue;
    if (dryRun) io.stdout(unifiedDiff(file.path, text, outcome.text));
    else if (file.path !== '-') {
      try {
        writeFixedFile(file.path, text, outcome.text, file.encoding, file.identity);
      } catch (error) {
        inputs.inputErrors.push({ file: file.path, kind: 'fix', message: `not fixed: cannot write the file: ${(error as Error).message}` });
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

/** The file's text, or undefined when it cannot be read (not UTF-8, or gone since it was found). */
function readableText(file: InputFile): string | undefined {
  try {
    return file.text;
  } catch (error) {
    if (error instanceof InputUnreadable) return undefined;
    throw error;
  }
}
