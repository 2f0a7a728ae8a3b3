// Every file probe-lint writes (a --fix, the render cache, a rendering's scratch files) is written
// whole or not at all: the bytes go to a fresh temporary file beside the target, every byte is
// checked written, the file is synced, and only then renamed over the target. A full disk, a
// read-only file, or a file changed while probe-lint ran leaves the target as it was.
//
// write-file-atomic does the rename dance too, but takes one write(2) at its word: a short write on a
// filling disk is renamed over the target, truncated. Here the write loops until every byte is taken
// and the size is checked before the rename.
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { isInside, realOrResolved } from './read/tree-root.js';

export interface AtomicWriteOptions {
  /** The mode of a new file (an existing file keeps its own mode, and its owner when root writes). */
  mode?: number;
  /**
   * The bytes the target holds now, as read at the start of the run: when it holds anything else by
   * the time of the write (an editor saved meanwhile), nothing is written.
   */
  expected?: Buffer;
  /**
   * A report's path (--report, the Action's SARIF, the component's files): a link at the path is
   * refused, never followed — a pull request can commit `probe-lint.sarif -> ../../x` — and so is a
   * path inside `tree` whose directory, links resolved, lies outside it.
   */
  report?: { tree: string };
  /** The file read (device and inode): the write goes only to it, never to a file or link swapped in at its name since. */
  identity?: { dev: number; ino: number };
}

/**
 * `bytes` random bytes in hex, from the Web Crypto global: Node loads it when it is first read, where
 * importing node:crypto would load it with the module, in every run, most of which write nothing.
 */
function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
}

/** Why a write did not happen; the target is as it was. */
export class WriteRefused extends Error {}

/**
 * Replaces `path`'s content with `data`, all or nothing. A symlinked target is written through (the
 * link stays); a target that is not a regular file, is read-only, has other hard links (renaming
 * over it would leave the other names with the old text) or changed since it was read is refused.
 */
export function writeFileAtomic(path: string, data: Buffer, options: AtomicWriteOptions = {}): void {
  if (options.report !== undefined) refuseReportLinks(path, options.report.tree);
  const target = options.report !== undefined ? path : targetOf(path);
  const existing = statOrUndefined(target);
  if (existing !== undefined) {
    if (!existing.isFile()) throw new WriteRefused('not a regular file');
    if ((existing.mode & 0o222) === 0) throw new WriteRefused('the file is read-only');
    if (existing.nlink > 1)
      throw new WriteRefused(
        `the file has ${existing.nlink} hard links, which a write would break (the other names would keep the old text); fix a copy, or remove the other links first`,
      );
  } else if (options.expected !== undefined) throw new WriteRefused('the file is gone since probe-lint read it');
  unchangedSince(target, options.expected);
  sameFile(path, target, options.identity);
  const temporary = join(dirname(target), `.${basename(target)}.probe-lint-${randomHex(8)}.tmp`);
  // O_EXCL and O_NOFOLLOW: nothing planted at that name is followed or overwritten.
  const descriptor = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    try {
      writeAll(descriptor, data);
      if (fstatSync(descriptor).size !== data.length) throw new WriteRefused(`only ${fstatSync(descriptor).size} of ${data.length} bytes could be written`);
      // Through the descriptor, not the name: nothing swapped in at that name meanwhile is touched.
      fchmodSync(descriptor, existing !== undefined ? existing.mode & 0o7777 : (options.mode ?? 0o644));
      if (existing !== undefined && process.getuid?.() === 0) fchownSync(descriptor, existing.uid, existing.gid);
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    // Checked again at the last moment: a file saved while this one was written is not overwritten.
    unchangedSince(target, options.expected);
    sameFile(path, target, options.identity);
    renameSync(temporary, target);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // already renamed, or never created
    }
    throw error;
  }
  syncDirectory(dirname(target));
}

/** Writes every byte: write(2) may take fewer than asked (a filling disk), and says so only by its count. */
function writeAll(descriptor: number, data: Buffer): void {
  let offset = 0;
  while (offset < data.length) {
    const written = writeSync(descriptor, data, offset, data.length - offset, offset);
    if (written <= 0) throw new WriteRefused(`only ${offset} of ${data.length} bytes could be written`);
    offset += written;
  }
}

/** Why a report may not be written at `path` (a WriteRefused), checked before anything is opened. */
export function refuseReportLinks(path: string, tree: string): void {
  let stats: Stats | undefined;
  try {
    stats = lstatSync(path);
  } catch {
    // nothing there yet
  }
  if (stats?.isSymbolicLink()) throw new WriteRefused('it is a symbolic link, and a report is never written through one; remove the link');
  if (stats !== undefined && !stats.isFile()) throw new WriteRefused('not a regular file');
  const realTree = realOrResolved(tree);
  if (!isInside(resolve(path), resolve(tree)) && !isInside(resolve(path), realTree)) return;
  const directory = realOrResolved(dirname(resolve(path)));
  if (!isInside(directory, realTree)) throw new WriteRefused(`its directory is a link out of the work tree (to ${directory}); a report stays inside it`);
}

function targetOf(path: string): string {
  try {
    return lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
  } catch {
    return path;
  }
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The path still leads where it did, to the file that was read. */
function sameFile(path: string, target: string, identity: AtomicWriteOptions['identity']): void {
  if (identity === undefined) return;
  let now: Stats;
  try {
    now = statSync(path);
  } catch {
    throw new WriteRefused('the file is gone since probe-lint read it');
  }
  if (targetOf(path) !== target || now.dev !== identity.dev || now.ino !== identity.ino)
    throw new WriteRefused('the file is no longer the one probe-lint read (replaced, or swapped for a link); run it again');
}

function unchangedSince(target: string, expected: Buffer | undefined): void {
  if (expected !== undefined && !readFileSync(target).equals(expected)) throw new WriteRefused('the file changed while probe-lint was running; run it again');
}

/** The rename itself is durable only once the directory is synced; a directory that cannot be opened (some filesystems) is left as it is. */
function syncDirectory(directory: string): void {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(directory, constants.O_RDONLY | constants.O_DIRECTORY);
    fsyncSync(descriptor);
  } catch {
    // not every filesystem lets a directory be synced
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}
