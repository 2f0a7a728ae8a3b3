// What kubectl's YAML parser (go-yaml v2, through sigs.k8s.io/yaml) refuses and js-yaml reads: a plain
// scalar inside a flow collection ends at a `?` (scannerc.go, yaml_parser_scan_plain_scalar: in flow
// context `,`, `?`, `[`, `]`, `{` and `}` end it), after which the collection cannot go on — so
// `{path: /x?local=true, port: http}` is an error there ("did not find expected ',' or '}'"), never
// the path js-yaml reads. A file kubectl cannot apply must not be read as if it could.
import jsYaml from 'js-yaml';
import { KUBECTL_SCHEMA } from './yaml11-schema.js';

/** Where the first plain scalar in a flow collection holds a `?`, and what go-yaml says of it; undefined when there is none. */
export function flowQuestionMark(text: string): { offset: number; reason: string } | undefined {
  // Only a line with both a flow collection and a question mark can hold one: most files skip the second parse.
  if (!/[[{][^\n]*\?/.test(text)) return undefined;
  const frames: { start: number; flow: '[' | '{' | undefined }[] = [];
  let found: { offset: number; reason: string } | undefined;
  const listener = (event: 'open' | 'close', state: { position: number; result: unknown }) => {
    if (event === 'open') {
      // js-yaml opens a node before the blanks in front of it.
      const character = firstCharacter(text, state.position);
      frames.push({ start: state.position, flow: character === '[' || character === '{' ? character : undefined });
      return;
    }
    const frame = frames.pop()!;
    if (found !== undefined || typeof state.result !== 'string' || !state.result.includes('?')) return;
    const enclosing = frames.findLast((candidate) => candidate.flow !== undefined);
    // A quote makes it no plain scalar.
    const first = firstCharacter(text, frame.start);
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

function firstCharacter(text: string, from: number): string | undefined {
  for (let index = from; index < text.length; index++) {
    const character = text[index]!;
    if (character !== ' ' && character !== '\t' && character !== '\n' && character !== '\r') return character;
  }
  return undefined;
}
