import { renameSync, statSync, writeFileSync, chmodSync, unlinkSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { createTwoFilesPatch } from 'diff';

/** Replaces a file's content through a temporary file and a rename, so a crash never leaves it half-written. */
export function writeFileAtomically(path: string, text: string): void {
  const temporary = join(dirname(path), `.${basename(path)}.probe-lint-${process.pid}.tmp`);
  try {
    writeFileSync(temporary, text);
    chmodSync(temporary, statSync(path).mode);
    renameSync(temporary, path);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // nothing was written
    }
    throw error;
  }
}

/** A unified diff, labelled git-style (a/ and b/) for relative paths. */
export function unifiedDiff(path: string, before: string, after: string): string {
  const [from, to] = isAbsolute(path) ? [path, path] : [`a/${path}`, `b/${path}`];
  return createTwoFilesPatch(from, to, before, after, '', '', { context: 3 });
}
