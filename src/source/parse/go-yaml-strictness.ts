// What kubectl's YAML parser (go-yaml v2, through sigs.k8s.io/yaml) refuses and js-yaml reads: a plain
// scalar inside a flow collection ends at a `?` (scannerc.go, yaml_parser_scan_plain_scalar: in flow
// context `,`, `?`, `[`, `]`, `{` and `}` end it), after which the collection cannot go on — so
// `{path: /x?local=true, port: http}` is an error there ("did not find expected ',' or '}'"), never
// the path js-yaml reads. A file kubectl cannot apply must not be read as if it could.
import jsYaml from 'js-yaml';
import { KUBECTL_SCHEMA } from './yaml11-schema.js';

const QUOTED = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'/g;
const COMMENT = /(^|\s)#.*$/;
/** A line whose value (of a key or a sequence item, after any anchor or tag) opens a flow collection with a `?` after it. */
const FLOW_VALUE_THEN_MARK = /^\s*(?:-\s+)*(?:[^\s#-][^:]*:\s+)?(?:[&!]\S*\s+)*[[{][^\n]*\?/;

/**
 * Whether some line opens a flow collection as a value and holds an unquoted, uncommented `?` after
 * it: only then is the second parse needed. Most files have no `?` at all (one indexOf); of the rest,
 * most hold it in a quoted string (a URL in JSON) or a comment. Only the lines that hold a `?` are
 * looked at, found from the marks, not by splitting the whole text. A superset of what go-yaml
 * refuses on one line; the parse decides.
 */
function mayHoldFlowQuestionMark(text: string): boolean {
  for (let mark = text.indexOf('?'); mark !== -1;) {
    const start = text.lastIndexOf('\n', mark) + 1;
    const newline = text.indexOf('\n', mark);
    const end = newline === -1 ? text.length : newline;
    const line = text.slice(start, end);
    if (bracketThenMark(line) && FLOW_VALUE_THEN_MARK.test(line.replace(QUOTED, 'x').replace(COMMENT, ''))) return true;
    mark = newline === -1 ? -1 : text.indexOf('?', newline);
  }
  return false;
}

/**
 * A `[` or `{` with a `?` after it on the line. Found with indexOf, not a regular expression: one
 * tried from each bracket to the line's end, and a 300 KB line of brackets took 8 s.
 */
function bracketThenMark(line: string): boolean {
  const square = line.indexOf('[');
  const curly = line.indexOf('{');
  const bracket = square === -1 ? curly : curly === -1 ? square : Math.min(square, curly);
  return bracket !== -1 && bracket < line.lastIndexOf('?');
}

/** Where the first plain scalar in a flow collection holds a `?`, and what go-yaml says of it; undefined when there is none. */
export function flowQuestionMark(text: string): { offset: number; reason: string } | undefined {
  if (!mayHoldFlowQuestionMark(text)) return undefined;
  const frames: { start: number; flow: '[' | '{' | undefined }[] = [];
  let found: { offset: number; reason: string } | undefined;
  const listener = (event: 'open' | 'close', state: { position: number; result: unknown }) => {
    if (event === 'open') {
      // js-yaml opens a node before the blanks in front of it.
      // A node's properties (an anchor, a tag) come before its collection: `key: &a [x?y]`.
      const character = firstCharacter(text, afterProperties(text, state.position));
      frames.push({ start: state.position, flow: character === '[' || character === '{' ? character : undefined });
      return;
    }
    const frame = frames.pop()!;
    if (found !== undefined || typeof state.result !== 'string' || !state.result.includes('?')) return;
    const enclosing = frames.findLast((candidate) => candidate.flow !== undefined);
    // A quote makes it no plain scalar.
    const first = firstCharacter(text, afterProperties(text, frame.start));
    if (enclosing === undefined || first === '"' || first === "'") return;
    const mark = text.indexOf('?', frame.start);
    // A `?` that starts the scalar is go-yaml's key indicator (`[?x]` is `[{x: null}]` there), not an end.
    if (mark === text.indexOf(first!, frame.start)) return;
    found = { offset: mark === -1 ? frame.start : mark, reason: `did not find expected ',' or '${enclosing.flow === '[' ? ']' : '}'}'` };
  };
  try {
    jsYaml.loadAll(text, () => undefined, { schema: KUBECTL_SCHEMA, json: true, listener });
  } catch {
    return undefined; // the parse proper reports its own errors
  }
  return found;
}

/** Past the anchor and tag in front of a node (`&name`, `!tag`, `!!seq`), if any. */
function afterProperties(text: string, from: number): number {
  const properties = /[ \t\r\n]*(?:[&!][^ \t\r\n,[\]{}]*[ \t\r\n]+)*/y;
  properties.lastIndex = from;
  properties.exec(text);
  return properties.lastIndex;
}

function firstCharacter(text: string, from: number): string | undefined {
  for (let index = from; index < text.length; index++) {
    const character = text[index]!;
    if (character !== ' ' && character !== '\t' && character !== '\n' && character !== '\r') return character;
  }
  return undefined;
}
