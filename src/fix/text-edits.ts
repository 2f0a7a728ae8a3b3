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

/** Edits kept in order of position, so that checking a new one against them is a binary search, not a scan. */
export class EditPlan {
  private readonly sorted: TextEdit[] = [];

  get edits(): readonly TextEdit[] {
    return this.sorted;
  }

  conflicts(edit: TextEdit): boolean {
    const index = this.firstStartingAtOrAfter(edit.start);
    if (index > 0 && overlaps(edit, this.sorted[index - 1]!)) return true;
    for (let next = index; next < this.sorted.length && this.sorted[next]!.start <= edit.end; next++) {
      if (overlaps(edit, this.sorted[next]!)) return true;
    }
    return false;
  }

  add(edit: TextEdit): void {
    this.sorted.splice(this.firstStartingAtOrAfter(edit.start), 0, edit);
  }

  private firstStartingAtOrAfter(offset: number): number {
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.sorted[mid]!.start < offset) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

/** Applies non-overlapping edits (in any order), copying the text once. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const parts: string[] = [];
  let position = 0;
  for (const edit of [...edits].sort((a, b) => a.start - b.start)) {
    parts.push(text.slice(position, edit.start), edit.text);
    position = edit.end;
  }
  parts.push(text.slice(position));
  return parts.join('');
}
