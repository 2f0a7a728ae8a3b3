/** A replacement of text[start, end) by `text`. Fixes become edits so that nothing else in a file moves. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

export function overlaps(a: TextEdit, b: TextEdit): boolean {
  // Two insertions at the same point would interleave unpredictably: treat them as overlapping too.
  return a.start < b.end && b.start < a.end ? true : a.start === b.start && (a.start === a.end || b.start === b.end);
}

/** Applies non-overlapping edits (in any order). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let result = text;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) {
    result = result.slice(0, edit.start) + edit.text + result.slice(edit.end);
  }
  return result;
}
