import { isAbsolute } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { writeFileAtomic } from '../source/atomic-write.js';
import { encodeText, type FileIdentity, type TextEncoding } from '../source/read/inputs.js';

/**
 * Replaces a manifest's content with its fixed text through the one atomic writer: all or nothing,
 * and only while the file still holds what was read (an editor's save meanwhile is never lost).
 */
export function writeFixedFile(path: string, expectedBefore: string, text: string, encoding?: TextEncoding, identity?: FileIdentity): void {
  writeFileAtomic(path, encodeText(text, encoding), { expected: encodeText(expectedBefore, encoding), ...(identity !== undefined ? { identity } : {}) });
}

/** A unified diff, labelled git-style (a/ and b/) for relative paths. */
export function unifiedDiff(path: string, before: string, after: string): string {
  const [from, to] = isAbsolute(path) ? [path, path] : [`a/${path}`, `b/${path}`];
  return createTwoFilesPatch(from, to, before, after, '', '', { context: 3 });
}
