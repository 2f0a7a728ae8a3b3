import type { Position } from '../model/position.js';

/** Turns string offsets into 1-based line:column; the line table is built on first use only. */
export class LineIndex {
  private starts: number[] | undefined;

  constructor(private readonly text: string) {}

  positionOf(offset: number): Position {
    const starts = (this.starts ??= lineStarts(this.text));
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - starts[low]! + 1 };
  }

  /** Skips blanks, line breaks and comments: js-yaml reports some nodes before their separation space. */
  skipSeparation(offset: number): number {
    const text = this.text;
    let i = offset;
    while (i < text.length) {
      const ch = text.charCodeAt(i);
      if (ch === 0x20 || ch === 0x09 || ch === 0x0a || ch === 0x0d) i++;
      else if (ch === 0x23 /* # */) {
        while (i < text.length && text.charCodeAt(i) !== 0x0a) i++;
      } else break;
    }
    return i;
  }
}

function lineStarts(text: string): number[] {
  const starts = [0];
  let index = text.indexOf('\n');
  while (index !== -1) {
    starts.push(index + 1);
    index = text.indexOf('\n', index + 1);
  }
  return starts;
}
