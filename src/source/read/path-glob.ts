// Path globs for `exclude:` and --exclude, matched in time bounded by the pattern's and the path's
// lengths multiplied, whatever the pattern: a config from a pull request cannot make a run, the hook or
// the language server hang on `*a*a*a*a*a*b` (a backtracking matcher takes exponential time on it) or
// on braces that multiply (`{a,b}` nine times over is 512 patterns to expand; here it is 27 states).
// The pattern is compiled once into a nondeterministic automaton, braces as branches, and the path is
// read once, every live state advanced together (Thompson's construction). Syntax, as .gitignore and
// picomatch read it:
//   `*` any characters but `/`; `**` as a whole segment, any number of segments; `?` one character;
//   `[abc]`, `[a-z]`, `[!a]` or `[^a]` one character of a set; `{a,b}` alternatives; `\` quotes.
// Dot files are matched like any other.

/** A pattern that cannot be read (an unclosed `[` or `{`). */
export class GlobError extends Error {}

type Item =
  | { kind: 'test'; test: (character: string) => boolean }
  | { kind: 'star' }
  /** `**` followed by `/`: any number of whole segments, each with its `/`. */
  | { kind: 'segments' }
  /** `**` at the end: anything. */
  | { kind: 'rest' }
  /** `/**` at the end: nothing, or `/` and anything (so `dir/**` is `dir` and all under it). */
  | { kind: 'tail' }
  | { kind: 'alternatives'; branches: Item[][] };

type State = { kind: 'test'; test: (character: string) => boolean; next: number } | { kind: 'split'; next: number[] } | { kind: 'accept' };

/** A matcher for `/`-separated relative paths: the whole path matches the pattern. */
export function compilePathGlob(pattern: string): (path: string) => boolean {
  const automaton = new GlobAutomaton(pattern);
  return (path) => automaton.run(path, false);
}

/** A matcher for `/`-separated relative paths: the path, or one of its ancestors, matches the pattern. */
export function compilePathGlobPrefixes(pattern: string): (path: string) => boolean {
  const automaton = new GlobAutomaton(pattern);
  return (path) => automaton.run(path, true);
}

class GlobAutomaton {
  private readonly states: State[] = [];
  private readonly start: number;
  /** Closure marks: a state is added to a step's set once (the generation of the step it was added in). */
  private readonly seen: number[];
  private generation = 0;

  constructor(pattern: string) {
    const accept = this.add({ kind: 'accept' });
    this.start = this.build(new GlobParser(pattern).parse(), accept);
    this.seen = new Array<number>(this.states.length).fill(-1);
  }

  /** Reads the path once; with `prefixes`, an accepting state at a `/` (an ancestor matched) is enough. */
  run(path: string, prefixes: boolean): boolean {
    let current = this.closure([this.start]);
    for (let index = 0; index < path.length; index++) {
      const character = path[index]!;
      if (prefixes && character === '/' && index > 0 && this.accepts(current)) return true;
      const moved: number[] = [];
      for (const state of current) {
        const node = this.states[state]!;
        if (node.kind === 'test' && node.test(character)) moved.push(node.next);
      }
      if (moved.length === 0) return false;
      current = this.closure(moved);
    }
    return (!prefixes || path.length > 0) && this.accepts(current);
  }

  private accepts(states: readonly number[]): boolean {
    return states.some((state) => this.states[state]!.kind === 'accept');
  }

  /** The states reached from `from` without reading a character: each at most once, so linear in the automaton. */
  private closure(from: readonly number[]): number[] {
    const generation = ++this.generation;
    const result: number[] = [];
    const stack = [...from];
    while (stack.length > 0) {
      const state = stack.pop()!;
      if (this.seen[state] === generation) continue;
      this.seen[state] = generation;
      const node = this.states[state]!;
      if (node.kind === 'split') stack.push(...node.next);
      else result.push(state);
    }
    return result;
  }

  private add(state: State): number {
    this.states.push(state);
    return this.states.length - 1;
  }

  /** The automaton for `items` followed by `next`, built back to front: returns its first state. */
  private build(items: readonly Item[], next: number): number {
    let after = next;
    for (let index = items.length - 1; index >= 0; index--) after = this.buildItem(items[index]!, after);
    return after;
  }

  private buildItem(item: Item, next: number): number {
    const notSlash = (character: string) => character !== '/';
    switch (item.kind) {
      case 'test':
        return this.add({ kind: 'test', test: item.test, next });
      case 'star':
        return this.loop(notSlash, next);
      case 'rest':
        return this.loop(() => true, next);
      case 'tail': {
        const slash = this.add({ kind: 'test', test: (character) => character === '/', next: this.loop(() => true, next) });
        return this.add({ kind: 'split', next: [next, slash] });
      }
      case 'segments': {
        // ([^/]*/)*: a split that leaves or reads a segment, which loops on itself until its `/`.
        const entry = this.add({ kind: 'split', next: [next] });
        const segment = this.add({ kind: 'split', next: [] });
        const character = this.add({ kind: 'test', test: notSlash, next: segment });
        const slash = this.add({ kind: 'test', test: (c) => c === '/', next: entry });
        (this.states[segment] as { next: number[] }).next.push(character, slash);
        (this.states[entry] as { next: number[] }).next.push(segment);
        return entry;
      }
      case 'alternatives':
        return this.add({ kind: 'split', next: item.branches.map((branch) => this.build(branch, next)) });
    }
  }

  /** Any number of characters passing `test`, then `next`. */
  private loop(test: (character: string) => boolean, next: number): number {
    const split = this.add({ kind: 'split', next: [next] });
    (this.states[split] as { next: number[] }).next.unshift(this.add({ kind: 'test', test, next: split }));
    return split;
  }
}

/** The pattern's text to items, braces nested as alternatives: one pass, each character once. */
class GlobParser {
  private index = 0;
  /** `{…}` without a comma is literal, as in the shell: its `}` is a character too. */
  private literalBraces = 0;

  constructor(private readonly pattern: string) {}

  parse(): Item[] {
    return this.sequence(false);
  }

  /** Items up to the end, or (inside braces) up to the `,` or `}` that ends this branch. */
  private sequence(inBraces: boolean): Item[] {
    const items: Item[] = [];
    const text = this.pattern;
    while (this.index < text.length) {
      const character = text[this.index]!;
      if (inBraces && (character === ',' || (character === '}' && this.literalBraces === 0))) break;
      if (character === '\\' && this.index + 1 < text.length) {
        items.push(literal(text[this.index + 1]!));
        this.index += 2;
      } else if (character === '?') {
        items.push({ kind: 'test', test: (c) => c !== '/' });
        this.index++;
      } else if (character === '*') items.push(this.stars());
      else if (character === '[') items.push(this.set());
      else if (character === '{') items.push(...this.braces());
      else {
        if (character === '}' && this.literalBraces > 0) this.literalBraces--;
        items.push(literal(character));
        this.index++;
      }
    }
    // `dir/**` at the very end: the directory and all under it.
    if (!inBraces && items.at(-1)?.kind === 'rest' && isSlash(items.at(-2))) items.splice(-2, 2, { kind: 'tail' });
    return items;
  }

  /** A run of stars: `**` as a whole segment is any number of segments, else one star. */
  private stars(): Item {
    const text = this.pattern;
    const first = this.index;
    while (text[this.index] === '*') this.index++;
    const before = first === 0 ? '/' : text[first - 1]!;
    const after = text[this.index];
    // Three or more stars are one star, as in .gitignore.
    if (this.index - first === 2 && '/{,'.includes(before)) {
      if (after === '/') {
        this.index++;
        return { kind: 'segments' };
      }
      if (after === undefined || after === '}' || after === ',') return { kind: 'rest' };
    }
    return { kind: 'star' };
  }

  private set(): Item {
    const text = this.pattern;
    let close = -1;
    for (let at = this.index + 2; at < text.length && text[at] !== '/'; at++)
      if (text[at] === ']') {
        close = at;
        break;
      }
    if (close === -1) throw new GlobError(`"${text}": a "[" is not closed`);
    let body = text.slice(this.index + 1, close);
    this.index = close + 1;
    const negated = body.startsWith('!') || body.startsWith('^');
    if (negated) body = body.slice(1);
    const items: (string | [string, string])[] = [];
    for (let at = 0; at < body.length; at++) {
      if (body[at + 1] === '-' && at + 2 < body.length) {
        items.push([body[at]!, body[at + 2]!]);
        at += 2;
      } else items.push(body[at]!);
    }
    return {
      kind: 'test',
      test: (character) =>
        character !== '/' && items.some((item) => (typeof item === 'string' ? item === character : item[0] <= character && character <= item[1])) !== negated,
    };
  }

  /** `{a,b}` as alternatives; `{a}` as the characters it is. */
  private braces(): Item[] {
    const shape = this.braceShape(this.index);
    if (shape === 'unclosed') throw new GlobError(`"${this.pattern}": a "{" is not closed`);
    if (shape === 'literal') {
      this.index++;
      this.literalBraces++;
      return [literal('{')];
    }
    const branches: Item[][] = [];
    const outerLiteral = this.literalBraces;
    this.literalBraces = 0;
    do {
      this.index++; // the `{` or the `,`
      branches.push(this.sequence(true));
    } while (this.pattern[this.index] === ',');
    this.index++; // the `}`
    this.literalBraces = outerLiteral;
    return [{ kind: 'alternatives', branches }];
  }

  /**
   * Whether the `{` at `open` closes, and with a comma at its own level. Scanned ahead once per brace:
   * a pattern is at most a few hundred characters (the config schema bounds it), nested braces
   * rescan their part only.
   */
  private braceShape(open: number): 'alternatives' | 'literal' | 'unclosed' {
    const text = this.pattern;
    let depth = 0;
    let comma = false;
    for (let at = open; at < text.length; at++) {
      const character = text[at];
      if (character === '\\') at++;
      else if (character === '{') depth++;
      else if (character === '}' && --depth === 0) return comma ? 'alternatives' : 'literal';
      else if (character === ',' && depth === 1) comma = true;
    }
    return 'unclosed';
  }
}

function literal(character: string): Item {
  return { kind: 'test', test: (c) => c === character };
}

function isSlash(item: Item | undefined): boolean {
  return item?.kind === 'test' && item.test('/') && !item.test('a');
}
