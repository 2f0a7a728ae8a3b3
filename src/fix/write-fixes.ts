import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fsyncSync,
  lstatSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { encodeText, type TextEncoding } from '../source/inputs.js';

/**
 * Replaces a manifest's content with its fixed text, safely:
 * - a symlinked manifest is written through: its target changes, the link stays;
 * - the new text goes to a fresh temporary file in the same directory, created exclusively
 *   (O_EXCL, O_NOFOLLOW) under a random name, so nothing planted there is followed or overwritten;
 * - mode and owner are copied, and the temporary file is renamed over the target: a crash never
 *   leaves it half-written;
 * - a read-only file, or one that changed since it was read (an editor saved meanwhile), is refused;
 * - so is a file with more than one hard link: renaming over it would leave the other names with
 *   the old text, and writing in place would give up the all-or-nothing write. Git never creates
 *   hard links in a checkout, so one there was made on purpose (or planted) and is left to the user.
 */
export function writeFixedFile(path: string, expectedBefore: string, text: string, encoding?: TextEncoding): void {
  const target = lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
  const stat = statSync(target);
  if (!stat.isFile()) throw new Error('not a regular file');
  if ((stat.mode & 0o222) === 0) throw new Error('the file is read-only');
  if (stat.nlink > 1)
    throw new Error(
      `the file has ${stat.nlink} hard links, which a fix would break (the other names would keep the old text); fix a copy, or remove the other links first`,
    );
  if (!readFileSync(target).equals(encodeText(expectedBefore, encoding))) throw new Error('the file changed while probe-lint was running; run it again');
  const temporary = join(dirname(target), `.${basename(target)}.probe-lint-${randomBytes(8).toString('hex')}.tmp`);
  const descriptor = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    try {
      writeSync(descriptor, encodeText(text, encoding));
      // Through the descriptor, not the name: nothing swapped in at that name meanwhile is touched.
      fchmodSync(descriptor, stat.mode & 0o7777);
      if (typeof process.getuid === 'function' && process.getuid() === 0) fchownSync(descriptor, stat.uid, stat.gid);
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    renameSync(temporary, target);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // already renamed or never created
    }
    throw error;
  }
}

/** A unified diff, labelled git-style (a/ and b/) for relative paths. */
export function unifiedDiff(path: string, before: string, after: string): string {
  const [from, to] = isAbsolute(path) ? [path, path] : [`a/${path}`, `b/${path}`];
  return createTwoFilesPatch(from, to, before, after, '', '', { context: 3 });
}
