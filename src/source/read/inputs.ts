import { isUtf8 } from 'node:buffer';
import type { InputErrorKind } from '../../model/input-error-kind.js';
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import { extname, join } from 'node:path';
import { NO_EXCLUSION, type PathExclusion } from './excluded-paths.js';
import type { RenderedOrigin } from '../parse/rendered.js';
import { shownPath } from './shown-path.js';
import { TREE_HELP, type TreeBounds } from './tree-root.js';

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
/** Directories that never hold the user's manifests. */
const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git']);
/** Larger inputs are refused with a clear error rather than exhausting memory (a 256 MiB `kubectl get -o json` dump is far past any cluster's). */
export const MAX_INPUT_BYTES = 256 * 1024 * 1024;

export interface InputFile {
  /** The path as the user will recognise it, or "-" for stdin. */
  path: string;
  text: string;
  /** How the file's bytes encode `text` (UTF-8 unless it starts with a UTF-16 byte-order mark); --fix writes it back the same way. */
  encoding?: TextEncoding;
  /** The file read (device and inode), once its text was read from disk. */
  identity?: FileIdentity;
  /** Set for the output of `helm template` or `kustomize build`: where each document came from. */
  rendered?: RenderedOrigin;
  /** Named on the command line itself (not found in a directory): what it holds is meant to be linted. */
  named?: true;
  /** Lets go of the text of a file on disk; it is read again if asked for (see diskFile). */
  release?(): void;
}

/**
 * A file on disk whose text could not be read when its turn came: it is not text probe-lint reads
 * (not UTF-8), or it changed since it was found (gone, grown past the bound). Said where it is read.
 */
export class InputUnreadable extends Error {
  constructor(readonly problem: InputProblem) {
    super(problem.message);
  }
}

export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be';

export interface InputProblem {
  path: string;
  kind: InputErrorKind;
  message: string;
  line?: number;
  column?: number;
}

export interface ReadResult {
  files: InputFile[];
  problems: InputProblem[];
  /** Things the user should know that are not errors (a chart skipped with --no-render). */
  notices: string[];
}

/**
 * Expands the command-line paths: files as given, directories recursively (*.yaml, *.yml,
 * *.json, sorted), "-" for stdin. Only regular files are read (a FIFO or a device named *.yaml
 * would block or never end). A path that cannot be read is a problem, not a crash; the others
 * are still read.
 */
export function readPlainInputs(paths: readonly string[], readStdin: () => string | Buffer, options: PlainReadOptions = {}): ReadResult {
  const { regularFiles, bounds, named } = options;
  const files: InputFile[] = [];
  const problems: InputProblem[] = [];
  const notices: string[] = [];
  const read = (path: string) => {
    // A link is followed only into the tree being linted, as in a chart: `app.yaml -> ~/.kube/config`
    // committed by a pull request is neither read nor, by --fix, written.
    const outside = bounds === undefined ? undefined : linkOutside(path, bounds);
    if (outside !== undefined) {
      notices.push(`skipped ${shownPath(path)}: a symbolic link to ${shownPath(outside)}, outside the tree being linted (${TREE_HELP})`);
      return;
    }
    const problem = checkManifestFile(path);
    if (problem !== undefined) problems.push({ path, kind: 'read', message: problem });
    else files.push(diskFile(path, named?.has(path) === true));
  };
  for (const path of paths) {
    // A file its directory's listing called regular is not asked of the disk again (two stats a
    // file, 26 → 17 ms of discovery over the real corpus): opening it checks it again, its size too.
    if (regularFiles?.has(path) === true) {
      files.push(diskFile(path));
      continue;
    }
    if (path === '-') {
      const input = readStdin();
      const decoded = typeof input === 'string' ? { text: input } : decodeText(input);
      if ('text' in decoded) files.push({ path: '-', ...decoded });
      else problems.push({ path: '-', kind: 'read', message: decoded.problem });
      continue;
    }
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (error) {
      problems.push({ path, kind: 'read', message: `cannot read: ${describeFsError(error)}` });
      continue;
    }
    if (isDirectory) for (const file of manifestFilesUnder(path, problems)) read(file);
    else read(path);
  }
  return { files, problems, notices };
}

export interface PlainReadOptions {
  /** Files a directory's listing called regular: not asked of the disk again. */
  regularFiles?: ReadonlySet<string> | undefined;
  /** The trees a link may lead into. */
  bounds?: TreeBounds | undefined;
  /** The paths named on the command line themselves, as given. */
  named?: ReadonlySet<string> | undefined;
}

/** Where a link leads when that is outside the bounds (a broken link is left to the read, which names it). */
function linkOutside(path: string, bounds: TreeBounds): string | undefined {
  try {
    if (!lstatSync(path).isSymbolicLink()) return undefined;
    const target = realpathSync(path);
    return bounds.contains(target) ? undefined : target;
  } catch {
    return undefined;
  }
}

/**
 * *.yaml, *.yml and *.json under a directory, sorted, skipping node_modules, .git and what is
 * excluded; `listed` is shown each directory's entries as they are read (discovery answers from them),
 * and `regularFiles` gets those its listing says are regular files (not a link, a FIFO or a device).
 */
export function manifestFilesUnder(
  directory: string,
  problems: InputProblem[],
  exclusion: PathExclusion = NO_EXCLUSION,
  listed?: (directory: string, entries: readonly Dirent[]) => void,
  regularFiles?: Set<string>,
): string[] {
  const found: string[] = [];
  const walk = (current: string) => {
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch (error) {
      problems.push({ path: current, kind: 'read', message: `cannot read: ${describeFsError(error)}` });
      return;
    }
    listed?.(current, entries);
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name) && exclusion.excludedBy(path) === undefined) walk(path);
      } else if (MANIFEST_EXTENSIONS.has(extname(entry.name).toLowerCase()) && exclusion.excludedBy(path) === undefined) {
        found.push(path);
        if (entry.isFile()) regularFiles?.add(path);
      }
    }
  };
  walk(directory);
  return found;
}

/**
 * A manifest on disk, checked when found (a regular file, by its directory's listing or by
 * checkManifestFile) and read when its text is first asked for, where it is opened and checked again
 * (a regular file within the size bound); its encoding is known from then. release() lets the
 * text go: a directory is linted one deployment unit at a time, and only that unit's texts are held,
 * not the whole tree's. Text that cannot be read then (too large, not UTF-8, or the file changed)
 * throws InputUnreadable where it is asked for.
 */
function diskFile(path: string, named = false): InputFile {
  let text: string | undefined;
  const file: InputFile = {
    path,
    text: '',
    ...(named ? { named: true as const } : {}),
    release: () => {
      text = undefined;
    },
  };
  // An own, enumerable accessor: a copy of the object ({ ...file }) reads the text like any field.
  Object.defineProperty(file, 'text', {
    enumerable: true,
    get: (): string => {
      if (text === undefined) {
        const read = readManifestFile(path);
        if ('problem' in read) throw new InputUnreadable({ path, kind: 'read', message: read.problem });
        if (read.encoding !== undefined) file.encoding = read.encoding;
        file.identity = read.identity;
        text = read.text;
      }
      return text;
    },
    set: (value: string) => {
      text = value;
    },
  });
  return file;
}

/**
 * Why a file found cannot be linted, from what the disk says of it (stat, which opens nothing: a
 * FIFO or a device is never touched): not a regular file, or past the size bound; undefined when it
 * may be read. Its bytes are read, and checked as UTF-8, once, when its unit comes, where the file
 * is opened and checked again (checking the real corpus's 2,186 files took 23.5 ms a run when each
 * was read here too, 7.7 ms now).
 */
function checkManifestFile(path: string): string | undefined {
  try {
    return manifestProblem(statSync(path));
  } catch (error) {
    return `cannot read: ${describeFsError(error)}`;
  }
}

/** Why a file with these stats is not read: not a regular file, or past the size bound. */
function manifestProblem(stat: Stats): string | undefined {
  if (!stat.isFile()) return `cannot read: not a regular file (${kindOf(stat)}); only files are linted`;
  if (stat.size > MAX_INPUT_BYTES)
    return `cannot read: ${Math.round(stat.size / 1048576)} MiB is larger than the ${MAX_INPUT_BYTES / 1048576} MiB probe-lint reads; split the file`;
  return undefined;
}

/** Reads one manifest: a regular file, at most MAX_INPUT_BYTES, as UTF-8 (or UTF-16 with a byte-order mark). */
export function readManifestFile(path: string): (DecodedText & { identity: FileIdentity }) | { problem: string } {
  const read = readManifestBytes(path);
  if ('problem' in read) return read;
  const decoded = decodeText(read.bytes);
  return 'problem' in decoded ? decoded : { ...decoded, identity: read.identity };
}

/** Which file on its device: --fix writes only the file it read, not one swapped in at its name since. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** The file opened, if it is (still) a regular file within the size bound. */
function openManifest(path: string): { descriptor: number; size: number; identity: FileIdentity } | { problem: string } {
  let descriptor: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below as not a regular file.
    descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return { problem: `cannot read: ${describeFsError(error)}` };
  }
  let problem: string | undefined;
  try {
    const stat = fstatSync(descriptor);
    problem = manifestProblem(stat);
    if (problem === undefined) return { descriptor, size: stat.size, identity: { dev: stat.dev, ino: stat.ino } };
  } catch (error) {
    problem = `cannot read: ${describeFsError(error)}`;
  }
  closeSync(descriptor);
  return { problem };
}

function readManifestBytes(path: string): { bytes: Buffer; identity: FileIdentity } | { problem: string } {
  const opened = openManifest(path);
  if ('problem' in opened) return opened;
  const { descriptor } = opened;
  try {
    // Not zeroed first: only the bytes read are kept (a file that shrank meanwhile is cut to them).
    const buffer = Buffer.allocUnsafe(opened.size);
    let offset = 0;
    while (offset < buffer.length) {
      const count = readSync(descriptor, buffer, offset, buffer.length - offset, offset);
      if (count === 0) break;
      offset += count;
    }
    return { bytes: buffer.subarray(0, offset), identity: opened.identity };
  } catch (error) {
    return { problem: `cannot read: ${describeFsError(error)}` };
  } finally {
    closeSync(descriptor);
  }
}

interface DecodedText {
  text: string;
  encoding?: TextEncoding;
}

/** The bytes of `text` in `encoding`: what reading them back decodes to `text` again. */
export function encodeText(text: string, encoding: TextEncoding = 'utf-8'): Buffer {
  if (encoding === 'utf-8') return Buffer.from(text, 'utf8');
  const bytes = Buffer.from(text, 'utf16le');
  return encoding === 'utf-16le' ? bytes : bytes.swap16();
}

/**
 * Text as the YAML parser will see it: UTF-8 (kubectl's parser accepts nothing else but UTF-16
 * with a byte-order mark). Bytes that are not UTF-8 are an error naming where they are, never
 * silently replaced (a --fix would otherwise rewrite them).
 */
function decodeText(buffer: Buffer): DecodedText | { problem: string } {
  const encoding = byteOrderMarkOf(buffer);
  // ignoreBOM keeps a byte-order mark in the text, so that --fix writes it back.
  if (encoding !== undefined) return { text: new TextDecoder(encoding, { ignoreBOM: true }).decode(buffer), encoding };
  // toString makes a string of its own (a byte-order mark kept); TextDecoder's result kept the whole
  // buffer alive beside it, the file twice in memory.
  return isUtf8(buffer) ? { text: buffer.toString('utf8') } : { problem: notUtf8(buffer) };
}

/** Where bytes that are not UTF-8 first appear, said so. */
function notUtf8(buffer: Buffer): string {
  const text = buffer.toString('utf8');
  const line = text.slice(0, text.indexOf('\uFFFD')).split('\n').length;
  return `not valid UTF-8 text (line ${line}): YAML manifests must be UTF-8; convert the file (e.g. iconv -f latin1 -t utf-8)`;
}

/** UTF-16 by its byte-order mark; undefined for UTF-8. */
function byteOrderMarkOf(buffer: Buffer): 'utf-16le' | 'utf-16be' | undefined {
  if (buffer[0] === 0xff && buffer[1] === 0xfe) return 'utf-16le';
  if (buffer[0] === 0xfe && buffer[1] === 0xff) return 'utf-16be';
  return undefined;
}

function kindOf(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isDirectory()) return 'a directory';
  return 'a special file';
}

export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  if (code === 'ELOOP') return 'too many levels of symbolic links';
  return (error as Error).message;
}
