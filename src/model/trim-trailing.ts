// Text without the characters it ends with, by hand: `text.replace(/x+$/, '')` tries its match from
// every position of a long run of x not at the end, and takes time quadratic in it. Texts here are
// someone else's (a probe's path, a chart's file, a tool's output).

/** `text` without the run of `characters` (any of them) it ends with. */
export function trimTrailing(text: string, characters: string): string {
  let end = text.length;
  while (end > 0 && characters.includes(text[end - 1]!)) end--;
  return end === text.length ? text : text.slice(0, end);
}
