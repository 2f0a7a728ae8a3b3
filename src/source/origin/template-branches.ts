// Which lines of a Helm template a rendering cannot have produced: those inside an `if`/`else`
// branch that the rendering's values rule out. Charts write the same key in several branches
// (bitnami's `{{- if .Values.customLivenessProbe }} livenessProbe: … {{- else if
// .Values.livenessProbe.enabled }} livenessProbe: …`); a finding belongs on the branch that rendered.
// Only what is certain counts: a condition is evaluated when it is made of `.Values` paths (at the
// top level, or `$.Values` anywhere), literals, `not`, `and`, `or`, `eq` and `ne`; anything else —
// functions, variables, a changed dot — leaves its branches possible.

type Truth = boolean | 'unknown';

interface Frame {
  kind: 'if' | 'with' | 'range' | 'define';
  /** Whether the branch we are in renders. */
  state: Truth;
  /** Whether an earlier branch of this if/with was taken. */
  taken: Truth;
  /** False inside with/range/define: `.` is no longer the chart's root. */
  rootDot: boolean;
}

/** Indices (0-based) of the lines that start inside a branch the values rule out. */
export function deadLines(text: string, values: unknown): Set<number> {
  const dead = new Set<number>();
  const stack: Frame[] = [];
  const isDead = () => stack.some((frame) => frame.state === false);
  const rootDot = () => stack.every((frame) => frame.rootDot);
  let line = 0;
  let position = 0;
  while (position < text.length) {
    const open = text.indexOf('{{', position);
    const stop = open === -1 ? text.length : open;
    // Lines that begin before the next action take the state as it is now.
    for (let index = text.indexOf('\n', position); index !== -1 && index < stop; index = text.indexOf('\n', index + 1)) {
      line++;
      if (isDead()) dead.add(line);
    }
    if (open === -1) break;
    const close = actionEnd(text, open + 2);
    if (close === -1) break;
    const body = text
      .slice(open + 2, close)
      .replace(/^-\s/, '')
      .replace(/^-$/, '')
      .replace(/\s-$/, '')
      .trim();
    act(body, stack, values, rootDot());
    // An action may span lines: those lines belong to it, and the next line starts in the new state.
    for (let index = text.indexOf('\n', open); index !== -1 && index < close; index = text.indexOf('\n', index + 1)) line++;
    position = close + 2;
  }
  return dead;
}

/** The index of the `}}` that closes an action starting at `from`, skipping string literals. */
function actionEnd(text: string, from: number): number {
  for (let index = from; index < text.length; index++) {
    const char = text[index];
    if (char === '"') {
      for (index++; index < text.length && text[index] !== '"'; index++) if (text[index] === '\\') index++;
    } else if (char === '`') {
      index = text.indexOf('`', index + 1);
      if (index === -1) return -1;
    } else if (char === '}' && text[index + 1] === '}') return index;
  }
  return -1;
}

function act(body: string, stack: Frame[], values: unknown, rootDot: boolean): void {
  if (body.startsWith('/*')) return;
  const [keyword, rest] = splitKeyword(body);
  const top = stack.at(-1);
  switch (keyword) {
    case 'if': {
      const truth = evaluate(rest, values, rootDot);
      stack.push({ kind: 'if', state: truth, taken: truth, rootDot: true });
      return;
    }
    case 'with':
    case 'range': {
      const truth = keyword === 'range' && /:?=/.test(rest) ? 'unknown' : evaluate(rest, values, rootDot);
      stack.push({ kind: keyword, state: truth, taken: truth, rootDot: false });
      return;
    }
    case 'define':
    case 'block':
      stack.push({ kind: 'define', state: 'unknown', taken: 'unknown', rootDot: false });
      return;
    case 'else': {
      if (top === undefined) return;
      const rootOfBranch = stack.slice(0, -1).every((frame) => frame.rootDot);
      const [inner, condition] = splitKeyword(rest);
      const truth = inner === 'if' || inner === 'with' ? evaluate(condition, values, rootOfBranch) : rest === '' ? true : 'unknown';
      if (top.taken === true) top.state = false;
      else if (top.taken === 'unknown') top.state = 'unknown';
      else {
        top.state = truth;
        top.taken = truth;
      }
      if (inner === 'with') top.rootDot = false;
      return;
    }
    case 'end':
      stack.pop();
      return;
    default:
  }
}

function splitKeyword(body: string): [string, string] {
  const match = /^([a-z]+)\b([\s\S]*)$/.exec(body);
  return match === null ? ['', body] : [match[1]!, match[2]!.trim()];
}

/** What a condition evaluates to when it is not certain. */
const UNKNOWN = Symbol('unknown');
type Known = unknown;

function evaluate(condition: string, values: unknown, rootDot: boolean): Truth {
  const value = valueOf(tokens(condition), values, rootDot);
  return value === UNKNOWN ? 'unknown' : truthy(value);
}

/** Go templates' truth: false, 0, nil, and empty strings, maps and lists are false. */
function truthy(value: Known): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

type Token = string | Token[];

/** Words, string literals and parenthesised groups; a pipe (`|`) makes the whole unknown. */
function tokens(text: string): Token[] | typeof UNKNOWN {
  const result: Token[][] = [[]];
  const pattern = /\s*("(?:[^"\\]|\\.)*"|`[^`]*`|\(|\)|\||[^\s()|"`]+)/gy;
  let match: RegExpExecArray | null;
  let consumed = 0;
  while ((match = pattern.exec(text)) !== null) {
    consumed = pattern.lastIndex;
    const token = match[1]!;
    if (token === '|') return UNKNOWN;
    if (token === '(') result.push([]);
    else if (token === ')') {
      const group = result.pop();
      if (group === undefined || result.length === 0) return UNKNOWN;
      result.at(-1)!.push(group);
    } else result.at(-1)!.push(token);
  }
  if (text.slice(consumed).trim() !== '' || result.length !== 1) return UNKNOWN;
  return result[0]!;
}

function valueOf(expression: Token[] | typeof UNKNOWN, values: unknown, rootDot: boolean): Known {
  if (expression === UNKNOWN || expression.length === 0) return UNKNOWN;
  const [head, ...args] = expression as [Token, ...Token[]];
  if (args.length === 0) return operand(head, values, rootDot);
  const operands = () => args.map((arg) => operand(arg, values, rootDot));
  switch (head) {
    case 'not': {
      if (args.length !== 1) return UNKNOWN;
      const value = operand(args[0]!, values, rootDot);
      return value === UNKNOWN ? UNKNOWN : !truthy(value);
    }
    case 'and':
    case 'or': {
      // Go's and/or return the deciding operand; only its truth matters here.
      let unknown = false;
      for (const value of operands()) {
        if (value === UNKNOWN) unknown = true;
        else if (truthy(value) === (head === 'or')) return head === 'or';
      }
      return unknown ? UNKNOWN : head === 'and';
    }
    case 'eq':
    case 'ne': {
      const [left, ...rights] = operands();
      if (left === UNKNOWN || rights.length === 0 || rights.some((value) => value === UNKNOWN)) return UNKNOWN;
      if (!isScalar(left) || !rights.every(isScalar)) return UNKNOWN;
      const equal = rights.some((right) => right === left);
      return head === 'eq' ? equal : !equal;
    }
    default:
      return UNKNOWN;
  }
}

function isScalar(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function operand(token: Token, values: unknown, rootDot: boolean): Known {
  if (Array.isArray(token)) return valueOf(token, values, rootDot);
  if (token.startsWith('"')) return JSON.parse(token) as string;
  if (token.startsWith('`')) return token.slice(1, -1);
  if (token === 'true') return true;
  if (token === 'false') return false;
  if (token === 'nil') return null;
  if (/^-?\d+(\.\d+)?$/.test(token)) return Number(token);
  const path = /^(\$?)\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)*)$/.exec(token);
  if (path === null || (path[1] === '' && !rootDot)) return UNKNOWN;
  let node: unknown = values;
  for (const key of path[2]!.split('.').slice(1)) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return null; // a missing key is nil
    node = Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : null;
  }
  return node;
}
