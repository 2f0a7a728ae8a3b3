// Positions of YAML nodes, recorded while js-yaml parses.
//
// js-yaml's `listener` fires 'open' and 'close' around every node it composes. For every
// container we keep the source offsets of its children in a flat list, stored in its parent's
// list and, for a document's root, in `roots`. A JSON Pointer is then turned into line:column by
// walking these lists, without a second parse. This runs on the hot path: it allocates one array
// per container and nothing per scalar. (Keeping positions on the parsed objects, through a
// WeakMap or a symbol property, cost a third to a half of the parse; the `yaml` package's
// Document API costs several parses.)

/**
 * The children of one container, flat, in source order, kept in what the lookups read: for a
 * sequence (offset, children) per item; for a mapping (key offset, key, value's children) per
 * member. While a container is open its children are (offset, value, children) triples, for a
 * mapping alternating key and value.
 */
export type ChildList = unknown[];
/** Slots of one open child: offset, value, children. */
const STRIDE = 3;
/** Slots of one item of a closed sequence's list, and of one member of a closed mapping's. */
const ITEM = 2;
const MEMBER = 3;

export interface RootPositions {
  /** Offset of the document's root node. */
  start: number;
  children: ChildList;
}

export interface DuplicateKey {
  key: string;
  offset: number;
  /** The mapping that holds the key twice, as parsed: where it sits in the document is found from it. */
  mapping: object;
  /** Index of the document in the stream (counting from documentIndex at the start). */
  documentIndex: number;
}

const NO_CHILDREN: ChildList = [];

/** Records positions during js-yaml parses. Pass `listener` in js-yaml's load options. */
export class PositionRecorder {
  /** Per document index, its root's positions. */
  readonly roots: RootPositions[] = [];
  readonly duplicateKeys: DuplicateKey[] = [];
  /** Added to every position: set when a stream is parsed one document at a time. */
  baseOffset = 0;
  /** Index of the document being composed; a root node's close moves it on. */
  documentIndex = 0;
  /** Look for duplicate keys (costs a key count per mapping; only needed when a strict parse found one). */
  detectDuplicates = false;
  /** Open nodes, two slots each: start offset, then where its children begin in `pending`. */
  private stack: number[] = [];
  /**
   * The children of every open node, end to end (a node's own are the last ones while it is open).
   * A node's list is copied out at its close, at its exact size and with only the slots a lookup
   * reads: lists grown by pushes kept a third of their room empty, and held a value's offset and a
   * key's children that nothing reads (together 52 of the 90 MB positions took on 10,000 Deployments).
   */
  private pending: unknown[] = [];
  private pendingLength = 0;

  readonly listener = (event: 'open' | 'close', state: { position: number; result: unknown }): void => {
    const stack = this.stack;
    if (event === 'open') {
      stack.push(state.position + this.baseOffset, this.pendingLength);
      return;
    }
    const from = stack.pop()!;
    const start = stack.pop()!;
    const result = state.result;
    let children: ChildList;
    // js-yaml wraps some nodes (a flow collection at the top level) in a second composeNode with
    // the same result: the inner node's list is the real one.
    if (this.pendingLength - from === STRIDE && this.pending[from + 1] === result && result !== null && typeof result === 'object') {
      children = this.pending[from + 2] as ChildList;
    } else {
      children = this.pendingLength === from ? NO_CHILDREN : closedList(this.pending, from, this.pendingLength, Array.isArray(result));
    }
    this.pendingLength = from;
    if (this.detectDuplicates && children.length > 0 && result !== null && typeof result === 'object' && !Array.isArray(result)) {
      this.findDuplicates(result, children);
    }
    if (stack.length === 0) {
      this.roots[this.documentIndex++] = { start, children };
      return;
    }
    const pending = this.pending;
    let at = this.pendingLength;
    pending[at++] = start;
    pending[at++] = result;
    pending[at++] = children;
    this.pendingLength = at;
  };

  /** Reset between streams (a parse that failed half-way leaves open frames). */
  reset(): void {
    this.stack = [];
    this.pending = [];
    this.pendingLength = 0;
  }

  private findDuplicates(mapping: object, children: ChildList): void {
    if (children.length / MEMBER <= Object.keys(mapping).length) return;
    const seen = new Set<string>();
    for (let i = 0; i < children.length; i += MEMBER) {
      const key = String(children[i + 1]);
      if (key === '<<') continue; // merge keys may repeat
      if (seen.has(key)) this.duplicateKeys.push({ key, offset: children[i] as number, mapping, documentIndex: this.documentIndex });
      seen.add(key);
    }
  }
}

/**
 * A closed container's list from its open children `pending[from, to)`, at its exact size: a
 * sequence keeps each item's offset and children; a mapping each key's offset, the key, and the
 * value's children. A key's own children and a value's offset are never looked up; js-yaml may
 * leave an empty trailing node after a mapping's last pair (before a "---"), which is dropped.
 */
function closedList(pending: unknown[], from: number, to: number, sequence: boolean): ChildList {
  const count = (to - from) / STRIDE;
  if (sequence) {
    const list: ChildList = new Array(count * ITEM);
    for (let item = 0; item < count; item++) {
      list[item * ITEM] = pending[from + item * STRIDE];
      list[item * ITEM + 1] = pending[from + item * STRIDE + 2];
    }
    return list;
  }
  const members = Math.floor(count / 2);
  const list: ChildList = new Array(members * MEMBER);
  for (let member = 0; member < members; member++) {
    const key = from + member * 2 * STRIDE;
    list[member * MEMBER] = pending[key];
    list[member * MEMBER + 1] = pending[key + 1];
    list[member * MEMBER + 2] = pending[key + STRIDE + 2];
  }
  return list;
}

/** The (offset, children) of a mapping member's value, found by key; the last occurrence wins, like the value js-yaml kept. */
export function memberOf(children: ChildList, key: string): { keyOffset: number; children: ChildList } | undefined {
  let found: number | undefined;
  for (let i = 0; i < children.length; i += MEMBER) {
    if (String(children[i + 1]) === key) found = i;
  }
  return found === undefined ? undefined : { keyOffset: children[found] as number, children: children[found + 2] as ChildList };
}

/** The (offset, children) of a sequence item. */
export function itemOf(children: ChildList, index: number): { offset: number; children: ChildList } | undefined {
  if (!Number.isInteger(index) || index < 0 || index * ITEM >= children.length) return undefined;
  return { offset: children[index * ITEM] as number, children: children[index * ITEM + 1] as ChildList };
}
