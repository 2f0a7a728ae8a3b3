// A JSON report written as JSON.stringify(value, null, 2) writes it, but in chunks: its long
// lists (findings, results) are turned into text one item at a time, so that neither the whole
// text nor a second copy of every finding is held at once.
import { randomUUID } from 'node:crypto';

/** Chunks are handed on at about this size: one write per item would be a system call each. */
const CHUNK_CHARACTERS = 64 * 1024;

/** A list to write item by item where `streamedList` put its placeholder. */
export interface StreamedList {
  readonly placeholder: string;
  readonly items: readonly unknown[];
  readonly toValue: (item: never) => unknown;
}

/** A placeholder for a list inside the skeleton given to `streamedJson`. */
export function streamedList<T>(items: readonly T[], toValue: (item: T) => unknown): StreamedList {
  // No text of a report can hold it: a new random id per list.
  return { placeholder: `probe-lint-list-${randomUUID()}`, items, toValue };
}

/** `skeleton`'s JSON text (two-space indent, a final line break), each list written in its placeholder's place. */
export function* streamedJson(skeleton: unknown, lists: readonly StreamedList[]): Generator<string> {
  let text = JSON.stringify(skeleton, null, 2) + '\n';
  let pending = '';
  for (const list of lists) {
    const quoted = `"${list.placeholder}"`;
    const at = text.indexOf(quoted);
    if (at === -1) throw new Error('a streamed list is not in its skeleton');
    // The placeholder's line gives the depth: items go one level deeper, the bracket closes at it.
    const line = text.slice(text.lastIndexOf('\n', at) + 1, at);
    const indent = ' '.repeat(line.length - line.trimStart().length);
    pending += text.slice(0, at);
    text = text.slice(at + quoted.length);
    if (list.items.length === 0) {
      pending += '[]';
      continue;
    }
    pending += '[\n';
    const itemIndent = `${indent}  `;
    for (let index = 0; index < list.items.length; index++) {
      // A JSON text has no line break inside a string, so every one is a line of the layout.
      const item = JSON.stringify(list.toValue(list.items[index] as never), null, 2).replaceAll('\n', `\n${itemIndent}`);
      pending += `${itemIndent}${item}${index < list.items.length - 1 ? ',' : ''}\n`;
      if (pending.length >= CHUNK_CHARACTERS) {
        yield pending;
        pending = '';
      }
    }
    pending += `${indent}]`;
  }
  yield pending + text;
}
