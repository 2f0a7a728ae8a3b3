// Text that fits its room in an SVG, without the font at hand: widths are estimated per character,
// on the generous side (a sans-serif averages about half its size; wide characters count double),
// so a note wraps and a title is shortened before it could run past the picture's edge. What is
// shortened keeps its full text for a <title> (the tooltip and what a screen reader reads).
import { xmlAttribute } from './xml.js';

/**
 * `text` (already made visible) shortened to `width` px as SVG character data, its whole text a
 * <title> (the tooltip) when it was shortened; `shown` for laying out what comes beside it.
 */
export function fittedSvgText(
  text: string,
  width: number,
  size: number,
  options: { bold?: boolean; keep?: 'start' | 'end' } = {},
): { markup: string; shown: string } {
  const shown = ellipsize(text, width, size, options);
  return { shown, markup: shown === text ? xmlAttribute(shown) : `${xmlAttribute(shown)}<title>${xmlAttribute(text)}</title>` };
}

/** Sums of per-character widths differ from one product by rounding alone. */
const EPSILON = 1e-6;

/** Estimated width, in px, of `text` at `size` px; `bold` text runs wider. */
export function textWidth(text: string, size: number, bold = false): number {
  let units = 0;
  for (const character of text) units += character.codePointAt(0)! >= 0x2e80 ? 2 : 1;
  return units * size * (bold ? 0.58 : 0.54);
}

/**
 * `text` in at most `maxLines` lines of at most `width` px, broken at spaces (a word longer than a
 * line is cut); what does not fit the last line is cut off with an ellipsis. Linear in the text.
 */
export function wrapText(text: string, width: number, size: number, maxLines = 4): string[] {
  const lines: string[] = [];
  let line = '';
  let cut = false;
  for (const word of text.split(' ')) {
    if (lines.length > maxLines) {
      cut = true;
      break;
    }
    const candidate = line === '' ? word : `${line} ${word}`;
    if (textWidth(candidate, size) <= width) {
      line = candidate;
      continue;
    }
    if (line !== '') lines.push(line);
    const pieces = cutToWidth(word, width, size);
    lines.push(...pieces.slice(0, -1));
    line = pieces[pieces.length - 1]!;
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  if (!cut && lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = ellipsize(`${kept[maxLines - 1]} ${lines[maxLines] ?? '…'}`, width, size);
  return kept;
}

/** A word in pieces of at most `width` px (each at least one character). */
function cutToWidth(word: string, width: number, size: number): string[] {
  const pieces: string[] = [];
  let piece = '';
  let used = 0;
  for (const character of word) {
    const add = textWidth(character, size);
    if (piece !== '' && used + add > width + EPSILON) {
      pieces.push(piece);
      piece = '';
      used = 0;
    }
    piece += character;
    used += add;
  }
  pieces.push(piece);
  return pieces;
}

/** `text` shortened with an ellipsis to fit `width` px: its end kept for a path (`keep: 'end'`), its start otherwise. Linear in the text. */
export function ellipsize(text: string, width: number, size: number, options: { bold?: boolean; keep?: 'start' | 'end' } = {}): string {
  if (textWidth(text, size, options.bold) <= width) return text;
  const characters = [...text];
  if (options.keep === 'end') characters.reverse();
  const budget = width - textWidth('…', size, options.bold);
  let used = 0;
  let kept = 0;
  for (const character of characters) {
    used += textWidth(character, size, options.bold);
    if (used > budget + EPSILON) break;
    kept++;
  }
  const part = characters.slice(0, kept);
  return options.keep === 'end' ? `…${part.reverse().join('')}` : `${part.join('')}…`;
}
