// A JSON report written as JSON.stringify(value, null, 2) writes it, but in chunks: its long
// lists (findings, results) are turned into text a few items at a time, so that neither the whole
// text nor a second copy of every finding is held at once.
import { randomUUID } from 'node:crypto';

/** Chunks are handed on at up to this size: one write per item would be a system call each. */
const CHUNK_CHARACTERS = 64 * 1024;
/**
 * Items are stringified a batch at a time, as many as make about this much text by the sizes of those
 * before (at most MAX_BATCH_ITEMS): in a loop over the 16 MB file's 26,763 findings, one
 * JSON.stringify call per item took 80–110 ms, 32 at a time about 61 (fewer calls, slices and pieces).
 */
const BATCH_CHARACTERS = 32 * 1024;
const MAX_BATCH_ITEMS = 64;

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
    // The first batch is one item: its size sets the next batch's count, and so on.
    let batch = 1;
    for (let start = 0; start < list.items.length;) {
      const end = Math.min(start + batch, list.items.length);
      const values: unknown[] = [];
      for (let index = start; index < end; index++) values.push(list.toValue(list.items[index] as never));
      const items = itemsIndented(values, depth);
      if (size > 0 && size + items.length > CHUNK_CHARACTERS) {
        yield parts.join('');
        parts = [];
        size = 0;
      }
      parts.push(items, end < list.items.length ? ',\n' : '\n');
      size += items.length;
      batch = Math.max(1, Math.min(MAX_BATCH_ITEMS, Math.floor((BATCH_CHARACTERS * values.length) / items.length)));
      start = end;
    }
    parts.push(`${' '.repeat(indent)}]`);
  }
  parts.push(text);
  yield parts.join('');
}

/**
 * Items as JSON.stringify(…, null, 2) writes them in a list `depth` levels down, separated by ",\n":
 * the list stringified inside depth - 1 arrays, which indent it in the same pass, and cut out of
 * them and of its own brackets (each level adds a "[" line before and a "]" line after, 2·k + 2
 * characters at level k, d·(d + 1) in all).
 */
function itemsIndented(values: readonly unknown[], depth: number): string {
  let wrapped: unknown = values;
  for (let level = 1; level < depth; level++) wrapped = [wrapped];
  const frame = depth * (depth + 1);
  const text = JSON.stringify(wrapped, null, 2);
  return text.slice(frame, text.length - frame);
}
