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
  // Pieces joined once per chunk: joining flattens them in one pass, where += would build a deep rope.
  let parts: string[] = [];
  let size = 0;
  for (const list of lists) {
    const quoted = `"${list.placeholder}"`;
    const at = text.indexOf(quoted);
    if (at === -1) throw new Error('a streamed list is not in its skeleton');
    // The placeholder's line gives the depth: items go one level deeper, the bracket closes at it.
    const line = text.slice(text.lastIndexOf('\n', at) + 1, at);
    const indent = line.length - line.trimStart().length;
    parts.push(text.slice(0, at));
    text = text.slice(at + quoted.length);
    if (list.items.length === 0) {
      parts.push('[]');
      continue;
    }
    parts.push('[\n');
    const depth = indent / 2 + 1;
    for (let index = 0; index < list.items.length; index++) {
      const item = indented(list.toValue(list.items[index] as never), depth);
      parts.push(item, index < list.items.length - 1 ? ',\n' : '\n');
      size += item.length;
      if (size >= CHUNK_CHARACTERS) {
        yield parts.join('');
        parts = [];
        size = 0;
      }
    }
    parts.push(`${' '.repeat(indent)}]`);
  }
  parts.push(text);
  yield parts.join('');
}

/**
 * A value as JSON.stringify(…, null, 2) writes it `depth` levels down: stringified inside that
 * many arrays, which indent it in the same pass, and cut out of them (each level adds a "[" line
 * before and a "]" line after, 2·k + 2 characters at level k, d·(d + 1) in all).
 */
function indented(value: unknown, depth: number): string {
  let wrapped: unknown = value;
  for (let level = 0; level < depth; level++) wrapped = [wrapped];
  const frame = depth * (depth + 1);
  const text = JSON.stringify(wrapped, null, 2);
  return text.slice(frame, text.length - frame);
}
