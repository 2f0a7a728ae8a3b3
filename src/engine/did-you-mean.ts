/** The candidate closest to `word` by edit distance, when it is close enough to be a typo of it. */
export function closestMatch(word: string, candidates: Iterable<string>): string | undefined {
  const list = [...candidates];
  // A word cut short ("minPeriod" for "minPeriodSeconds") is a typo too.
  const extended = word.length >= 4 ? list.filter((candidate) => candidate.startsWith(word)) : [];
  if (extended.length === 1) return extended[0];
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of list) {
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  // A third of the word, at least 2: "formt" → "format", "timout-not-below-period" → "timeout-not-below-period".
  return bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

/** " (did you mean X?)" or "". */
export function didYouMean(word: string, candidates: Iterable<string>, quote = '"'): string {
  const match = closestMatch(word, candidates);
  return match === undefined ? '' : ` (did you mean ${quote}${match}${quote}?)`;
}

/** Levenshtein distance, two rows. */
export function editDistance(a: string, b: string): number {
  // Stryker disable next-line ConditionalExpression: a shortcut; the rows give 0 for equal words too.
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
