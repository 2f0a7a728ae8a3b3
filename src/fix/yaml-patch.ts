// RFC 6902 operations turned into minimal text edits of a YAML document, so that comments, key
// order, quoting, indentation and every untouched line stay byte for byte as they were. The
// `yaml` package's Document API gives each node's source range; new keys are rendered with the
// indentation of their siblings. A flow collection (`{a: 1}`) that must change is re-rendered whole.
import {
  isMap,
  isScalar,
  isSeq,
  stringify,
  type Document,
  type DocumentOptions,
  type Node,
  type Pair,
  type ParseOptions,
  type SchemaOptions,
  type ToStringOptions,
  type YAMLMap,
} from 'yaml';
import fastJsonPatch from 'fast-json-patch';
import type { PatchOperation } from '../engine/rule.js';
import { parsePointer } from '../model/pointer.js';
import type { TextEdit } from './text-edits.js';

/**
 * YAML 1.1, as kubectl reads manifests: keys such as `on` and values such as `yes` are read as
 * booleans, and a string "yes" written by a fix is quoted so it stays a string.
 */
export const YAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = { version: '1.1', merge: true };

/** Scalars and collections rendered on one line: a multi-line string becomes a JSON-escaped double-quoted scalar. */
const RENDER_OPTIONS: DocumentOptions & SchemaOptions & ToStringOptions = { ...YAML_OPTIONS, lineWidth: 0, doubleQuotedAsJSON: true };

/** Thrown when an operation cannot be expressed as an edit; the caller leaves the file alone. */
export class UnsupportedEdit extends Error {}

/**
 * Edits to `text` (which `document` was parsed from) that perform `operations`. Operations inside
 * a flow collection are grouped: its outermost flow node is re-rendered once with all of them.
 */
export function editsFor(text: string, document: Document, operations: readonly PatchOperation[]): TextEdit[] {
  const edits: TextEdit[] = [];
  const flowGroups = new Map<Node, { pointer: string; operations: PatchOperation[] }>();
  for (const operation of operations) {
    const flow = outermostFlowNode(document.contents, operation.path);
    if (flow === undefined) {
      edits.push(...blockEditsFor(text, document, operation));
      continue;
    }
    const group = flowGroups.get(flow.node) ?? flowGroups.set(flow.node, { pointer: flow.pointer, operations: [] }).get(flow.node)!;
    group.operations.push({ ...operation, path: operation.path.slice(flow.pointer.length) });
  }
  for (const [node, group] of flowGroups) edits.push(rerenderFlow(node, group.operations));
  return edits;
}

/** The first flow collection on the way to the operation's parent, with its pointer. */
function outermostFlowNode(root: Node | null, path: string): { node: Node; pointer: string } | undefined {
  const segments = parsePointer(path).slice(0, -1);
  let node = root;
  let pointer = '';
  for (let depth = 0; ; depth++) {
    if ((isMap(node) || isSeq(node)) && node.flow) return { node, pointer };
    if (depth === segments.length) return undefined;
    const segment = segments[depth]!;
    if (isMap(node)) node = (findPair(node, segment)?.value as Node | undefined) ?? null;
    else if (isSeq(node)) node = (node.items[Number(segment)] as Node | undefined) ?? null;
    else return undefined;
    pointer += '/' + segment.replace(/~/g, '~0').replace(/\//g, '~1');
  }
}

function rerenderFlow(node: Node, operations: PatchOperation[]): TextEdit {
  if (!node.range) throw new UnsupportedEdit('a flow collection without a source range');
  const value: unknown = fastJsonPatch.applyPatch(node.toJSON() as unknown, structuredClone(operations), true, false).newDocument;
  const rendered = stringify(value, { ...RENDER_OPTIONS, collectionStyle: 'flow' }).trimEnd();
  return { start: node.range[0], end: node.range[1], text: rendered };
}

function blockEditsFor(text: string, document: Document, operation: PatchOperation): TextEdit[] {
  const segments = parsePointer(operation.path);
  const key = segments.pop();
  if (key === undefined) throw new UnsupportedEdit('cannot replace a whole document');
  const parent = nodeAt(document.contents, segments, operation.path);
  if (!isMap(parent)) throw new UnsupportedEdit(`${operation.path}: only members of mappings can be fixed`);
  const pair = findPair(parent, key);

  if (operation.op === 'test') return [];
  if (operation.op === 'remove') {
    if (pair === undefined) throw new UnsupportedEdit(`${operation.path}: nothing to remove`);
    return [{ start: ownLineStart(text, pair), end: pairEnd(text, pair), text: '' }];
  }
  const value = operation.value;
  if (pair !== undefined) {
    const current = pair.value as Node | null;
    if (isPlainValue(value) && isScalar(current) && !isBlockScalar(current) && current.range) {
      return [{ start: current.range[0], end: current.range[1], text: renderScalar(value) }];
    }
    const indent = columnOf(text, (pair.key as Node).range![0]);
    return [{ start: ownLineStart(text, pair), end: pairEnd(text, pair), text: renderPair(key, value, indent, indentUnit(text, parent)) }];
  }
  if (operation.op === 'replace') throw new UnsupportedEdit(`${operation.path}: nothing to replace`);
  const last = parent.items[parent.items.length - 1];
  if (last === undefined) throw new UnsupportedEdit(`${operation.path}: cannot add to an empty mapping`);
  const indent = columnOf(text, (last.key as Node).range![0]);
  const at = pairEnd(text, last);
  const newline = at > 0 && text[at - 1] !== '\n' ? '\n' : '';
  return [{ start: at, end: at, text: newline + renderPair(key, value, indent, indentUnit(text, parent)) }];
}

/** The node at `segments` below `root` (a mapping member by its last occurrence); `path` names the operation in errors. */
export function nodeAt(root: Node | null, segments: readonly string[], path: string): Node | null {
  let node = root;
  for (const segment of segments) {
    if (isMap(node)) node = (findPair(node, segment)?.value as Node | undefined) ?? null;
    else if (isSeq(node)) node = (node.items[Number(segment)] as Node | undefined) ?? null;
    else throw new UnsupportedEdit(`${path}: "${segment}" does not exist`);
  }
  return node;
}

/** The last pair with this key: the value Kubernetes' decoders keep when a key is duplicated. */
export function findPair(map: YAMLMap, key: string): Pair | undefined {
  let found: Pair | undefined;
  for (const pair of map.items) {
    if (isScalar(pair.key) && String(pair.key.value) === key) found = pair;
  }
  return found;
}

function isPlainValue(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function isBlockScalar(node: Node): boolean {
  return isScalar(node) && (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED');
}

function renderScalar(value: unknown): string {
  return stringify(value, RENDER_OPTIONS).trimEnd();
}

/** `key: value` (or `key:` and an indented block) at `indent`, ending with a newline. */
function renderPair(key: string, value: unknown, indent: number, unit: number): string {
  const pad = ' '.repeat(indent);
  const renderedKey = renderScalar(key);
  if (isPlainValue(value) || (typeof value === 'object' && Object.keys(value as object).length === 0)) {
    return `${pad}${renderedKey}: ${renderScalar(value)}\n`;
  }
  const body = stringify(value, { ...RENDER_OPTIONS, indent: unit })
    .trimEnd()
    .split('\n')
    .map((line) => ' '.repeat(indent + unit) + line)
    .join('\n');
  return `${pad}${renderedKey}:\n${body}\n`;
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function columnOf(text: string, offset: number): number {
  return offset - lineStart(text, offset);
}

/** Start of the pair's line; the pair must begin its line (not follow a "- "). */
function ownLineStart(text: string, pair: Pair): number {
  const keyStart = (pair.key as Node).range![0];
  const start = lineStart(text, keyStart);
  if (text.slice(start, keyStart).trim() !== '') throw new UnsupportedEdit('the key shares its line with a sequence dash');
  return start;
}

/**
 * Just after the newline that ends the pair: its value and a comment on the same line. The
 * value's own end is used, not the node's, which may run on over comment lines that follow.
 */
function pairEnd(text: string, pair: Pair): number {
  const value = pair.value as Node | null;
  const end = value?.range ? value.range[1] : (pair.key as Node).range![1];
  if (end > 0 && text[end - 1] === '\n') return end;
  const newline = text.indexOf('\n', end);
  return newline === -1 ? text.length : newline + 1;
}

/** The document's own indentation step, read from a nested block mapping; 2 when there is none. */
function indentUnit(text: string, map: YAMLMap): number {
  for (const pair of map.items) {
    const child = pair.value;
    if (isMap(child) && !child.flow && child.items[0]?.key && pair.key) {
      const step = columnOf(text, (child.items[0].key as Node).range![0]) - columnOf(text, (pair.key as Node).range![0]);
      if (step > 0) return step;
    }
  }
  return 2;
}
