// RFC 6902 operations as minimal text edits of a JSON document: only the values a fix touches are
// written, so every other number, string, the indentation and the line ends stay as they were (a
// re-serialisation would turn 12345678901234567890 into 12345678901234567000 and 1.0 into 1).
import { isMap, parseDocument, type Node, type Pair } from 'yaml';
import type { PatchOperation } from '../engine/rule.js';
import { parsePointer } from '../model/pointer.js';
import { LineIndex } from '../source/parse/line-index.js';
import type { TextEdit } from './text-edits.js';
import { findPair, nodeAt, UnsupportedEdit } from './yaml-patch.js';

/** One parse of a JSON text per pass, shared by every finding's edits (a 30 MB `kubectl get -o json` dump has 100,000 of them). */
export class JsonTextEditor {
  private readonly root: Node | null;
  private readonly unit: string;
  private readonly lines: LineIndex;

  constructor(private readonly text: string) {
    this.root = parseDocument(text, { uniqueKeys: false, keepSourceTokens: false }).contents;
    this.unit = indentUnit(text);
    this.lines = new LineIndex(text);
  }

  editsFor(operations: readonly PatchOperation[]): TextEdit[] {
    const lineIndent = (offset: number) => /^[ \t]*/.exec(this.text.slice(this.lines.lineStartOf(offset), offset))![0];
    return operations.flatMap((operation) => editFor(this.text, this.root, operation, this.unit, lineIndent));
  }
}

function editFor(text: string, root: Node | null, operation: PatchOperation, unit: string, lineIndent: (offset: number) => string): TextEdit[] {
  if (operation.op === 'test') return [];
  const segments = parsePointer(operation.path);
  const key = segments.pop();
  if (key === undefined) throw new UnsupportedEdit('cannot replace a whole document');
  const parent = nodeAt(root, segments, operation.path);
  if (!isMap(parent) || !parent.range) throw new UnsupportedEdit(`${operation.path}: only members of objects can be fixed`);
  const pairs = parent.items;
  const pair = findPair(parent, key);
  const index = pair === undefined ? -1 : pairs.indexOf(pair);
  if (operation.op === 'remove') {
    if (pair === undefined) throw new UnsupportedEdit(`${operation.path}: nothing to remove`);
    const next = pairs[index + 1];
    const previous = pairs[index - 1];
    if (next !== undefined) return [{ start: keyStart(pair), end: keyStart(next), text: '' }];
    if (previous !== undefined) return [{ start: valueEnd(previous), end: valueEnd(pair), text: '' }];
    return [{ start: keyStart(pair), end: valueEnd(pair), text: '' }];
  }
  if (pair !== undefined) {
    const value = pair.value as Node | null;
    if (!value?.range) throw new UnsupportedEdit(`${operation.path}: a value without a source range`);
    return [{ start: value.range[0], end: value.range[1], text: render(operation.value, lineIndent(keyStart(pair)), unit) }];
  }
  if (operation.op === 'replace') throw new UnsupportedEdit(`${operation.path}: nothing to replace`);
  const last = pairs[pairs.length - 1];
  if (last === undefined) {
    const indent = lineIndent(parent.range[0]);
    return [
      {
        start: parent.range[0],
        end: parent.range[1],
        text: `{\n${indent}${unit}${JSON.stringify(key)}: ${render(operation.value, indent + unit, unit)}\n${indent}}`,
      },
    ];
  }
  const sameLine = !text.slice(parent.range[0], keyStart(last)).includes('\n');
  const indent = lineIndent(keyStart(last));
  const separator = sameLine ? ', ' : `,\n${indent}`;
  return [{ start: valueEnd(last), end: valueEnd(last), text: `${separator}${JSON.stringify(key)}: ${render(operation.value, indent, unit)}` }];
}

function keyStart(pair: Pair): number {
  const key = pair.key as Node | null;
  if (!key?.range) throw new UnsupportedEdit('a key without a source range');
  return key.range[0];
}

function valueEnd(pair: Pair): number {
  const value = pair.value as Node | null;
  if (!value?.range) throw new UnsupportedEdit('a value without a source range');
  return value.range[1];
}

/** JSON for a value placed at a line indented by `indent`, nested levels indented by `unit`. */
function render(value: unknown, indent: string, unit: string): string {
  const json = JSON.stringify(value, null, unit);
  return json.includes('\n') ? json.split('\n').join(`\n${indent}`) : json;
}

/** The file's own indentation step: the first indented line's leading whitespace; two spaces when none. */
function indentUnit(text: string): string {
  return /\n([ \t]+)["{[\]}]/.exec(text)?.[1] ?? '  ';
}
