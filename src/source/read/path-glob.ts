// Path globs for `exclude:` and --exclude, matched in time bounded by the pattern's and the path's
// lengths multiplied, whatever the pattern: a config from a pull request cannot make a run, the hook or
// the language server hang on a pattern like `*a*a*a*a*a*a*b` (a regular expression engine that
// backtracks takes exponential time on it). Syntax, as .gitignore and picomatch read it:
//   `*` any characters but `/`; `**` as a whole segment, any number of segments; `?` one character;
//   `[abc]`, `[a-z]`, `[!a]` or `[^a]` one character of a set; `{a,b}` alternatives; `\` quotes.
// Dot files are matched like any other.

/** More alternatives than this (braces multiply) are refused: a config cannot make the matcher grow without bound. */
export const MAX_ALTERNATIVES = 256;

/** A pattern that cannot be read (an unclosed `[` or `{`, too many alternatives). */
export class GlobError extends Error {}

type Token = { kind: 'char'; char: string } | { kind: 'any' } | { kind: 'star' } | { kind: 'set'; negated: boolean; items: (string | [string, string])[] };
type Segment = { kind: 'globstar' } | { kind: 'tokens'; tokens: Token[] };

/** A matcher for `/`-separated relative paths. */
export function compilePathGlob(pattern: string): (path: string) => boolean {
  const alternatives = expandBraces(pattern).map(parseSegments);
  return (path) => {
    const parts = path.split('/');
    return alternatives.some((segments) => matchSegments(segments, parts));
  };
}

/** `{a,b}` expanded, nested braces included; at most MAX_ALTERNATIVES results. */
function expandBraces(pattern: string): string[] {
  const open = findUnquoted(pattern, '{', 0);
  if (open === -1) return [pattern];
  let depth = 0;
  const commas: number[] = [];
  let close = -1;
  for (let index = open; index < pattern.length; index++) {
    const character = pattern[index];
    if (character === '\\') {
      index++;
      continue;
    }
    if (character === '{') depth++;
    else if (character === '}' && --depth === 0) {
      close = index;
      break;
    } else if (character === ',' && depth === 1) commas.push(index);
  }
  if (close === -1) throw new GlobError(`"${pattern}": a "{" is not closed`);
  // `{a}` without a comma is literal braces, as in the shell.
  if (commas.length === 0) return expandBraces(`${pattern.slice(0, open)}\\{${pattern.slice(open + 1, close)}\\}${pattern.slice(close + 1)}`);
  const bounds = [open, ...commas, close];
  const results: string[] = [];
  for (let index = 0; index + 1 < bounds.length; index++) {
    for (const expanded of expandBraces(`${pattern.slice(0, open)}${pattern.slice(bounds[index]! + 1, bounds[index + 1])}${pattern.slice(close + 1)}`)) {
      results.push(expanded);
      if (results.length > MAX_ALTERNATIVES) throw new GlobError(`"${pattern}": more than ${MAX_ALTERNATIVES} alternatives`);
    }
  }
  return results;
}

function findUnquoted(text: string, wanted: string, from: number): number {
  for (let index = from; index < text.length; index++) {
    if (text[index] === '\\') index++;
    else if (text[index] === wanted) return index;
  }
  return -1;
}

function parseSegments(pattern: string): Segment[] {
  const segments: Segment[] = [];
  for (const part of pattern.split('/')) {
    if (part === '**') {
      // `**/**` is one `**`.
      if (segments.at(-1)?.kind !== 'globstar') segments.push({ kind: 'globstar' });
    } else segments.push({ kind: 'tokens', tokens: parseTokens(part, pattern) });
  }
  return segments;
}

function parseTokens(part: string, pattern: string): Token[] {
  const tokens: Token[] = [];
  for (let index = 0; index < part.length; index++) {
    const character = part[index]!;
    if (character === '\\' && index + 1 < part.length) tokens.push({ kind: 'char', char: part[++index]! });
    else if (character === '?') tokens.push({ kind: 'any' });
    else if (character === '*') {
      // Several stars in a row match what one does.
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (character === '[') {
      const close = part.indexOf(']', index + 2);
      if (close === -1) throw new GlobError(`"${pattern}": a "[" is not closed`);
      let body = part.slice(index + 1, close);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      const items: (string | [string, string])[] = [];
      for (let at = 0; at < body.length; at++) {
        if (body[at + 1] === '-' && at + 2 < body.length) {
          items.push([body[at]!, body[at + 2]!]);
          at += 2;
        } else items.push(body[at]!);
      }
      tokens.push({ kind: 'set', negated, items });
      index = close;
    } else tokens.push({ kind: 'char', char: character });
  }
  return tokens;
}

function matchesToken(token: Exclude<Token, { kind: 'star' }>, character: string): boolean {
  if (token.kind === 'any') return true;
  if (token.kind === 'char') return token.char === character;
  const inSet = token.items.some((item) => (typeof item === 'string' ? item === character : item[0] <= character && character <= item[1]));
  return inSet !== token.negated;
}

/**
 * One segment: greedy, going back only to the last star (every token but a star takes exactly one
 * character, so an earlier star never needs to take more): at most tokens × characters steps.
 */
function matchSegment(tokens: readonly Token[], text: string): boolean {
  let t = 0;
  let s = 0;
  let starAt = -1;
  let starText = 0;
  while (s < text.length) {
    const token = tokens[t];
    if (token !== undefined && token.kind !== 'star' && matchesToken(token, text[s]!)) {
      t++;
      s++;
    } else if (token !== undefined && token.kind === 'star') {
      starAt = t++;
      starText = s;
    } else if (starAt !== -1) {
      t = starAt + 1;
      s = ++starText;
    } else return false;
  }
  while (tokens[t]?.kind === 'star') t++;
  return t === tokens.length;
}

/** Segments against path parts, `**` taking any number of parts: a table of pattern × path positions. */
function matchSegments(segments: readonly Segment[], parts: readonly string[]): boolean {
  // reachable[j]: the pattern read so far can end just before part j.
  let reachable = new Array<boolean>(parts.length + 1).fill(false);
  reachable[0] = true;
  for (const segment of segments) {
    const next = new Array<boolean>(parts.length + 1).fill(false);
    if (segment.kind === 'globstar') {
      let any = false;
      for (let j = 0; j <= parts.length; j++) {
        any ||= reachable[j]!;
        next[j] = any;
      }
    } else {
      for (let j = 0; j < parts.length; j++) if (reachable[j] && matchSegment(segment.tokens, parts[j]!)) next[j + 1] = true;
    }
    reachable = next;
  }
  return reachable[parts.length]!;
}
