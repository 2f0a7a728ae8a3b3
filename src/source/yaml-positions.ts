// Positions of YAML nodes, recorded while js-yaml parses.
//
// js-yaml's `listener` fires 'open' and 'close' around every node it composes. We keep, for each
// mapping and sequence it produces, the source offsets of its children (and the keys of a
// mapping), so a JSON Pointer can later be turned into line:column without a second parse.
// This costs little next to the parse itself; the `yaml` package's Document API would give the
// same positions at several times the parse cost (see bench/).

/** Children of one container node, as flat (offset, key-or-item) pairs. */
export interface NodeChildren {
  /** Offset of the node itself. */
  start: number;
  /** Flat pairs in source order: (key offset, key) for a mapping, (item offset, item) for a sequence. */
  children: unknown[];
}

export interface DuplicateKey {
  key: string;
  offset: number;
  /** Index of the document in the stream (counting from documentIndex at the start). */
  documentIndex: number;
}

interface Frame {
  start: number;
  children: unknown[];
}

/** Records positions during one js-yaml parse. Pass `listener` in js-yaml's load options. */
export class PositionRecorder {
  readonly nodes = new WeakMap<object, NodeChildren>();
  readonly duplicateKeys: DuplicateKey[] = [];
  private stack: Frame[] = [];
  /** Added to every position: set when a stream is parsed one document at a time. */
  baseOffset = 0;
  /** Index of the document being composed; a root node's close moves it on. */
  documentIndex = 0;

  readonly listener = (event: 'open' | 'close', state: { position: number; result: unknown }): void => {
    if (event === 'open') {
      this.stack.push({ start: state.position + this.baseOffset, children: [] });
      return;
    }
    const frame = this.stack.pop();
    if (frame === undefined) return;
    const result = state.result;
    // js-yaml wraps some nodes (a flow collection at the top level) in a second composeNode with
    // the same result; the inner frame holds the real children, so it is kept.
    if (result !== null && typeof result === 'object' && !this.nodes.has(result)) {
      if (Array.isArray(result)) {
        this.nodes.set(result, { start: frame.start, children: frame.children });
      } else {
        this.recordMapping(result, frame);
      }
    }
    const parent = this.stack[this.stack.length - 1];
    if (parent !== undefined) parent.children.push(frame.start, result);
    else this.documentIndex++;
  };

  /** Reset between documents of a stream whose parse failed half-way. */
  reset(): void {
    this.stack = [];
  }

  private recordMapping(result: object, frame: Frame): void {
    // frame.children alternates key node, value node; each node is (offset, result).
    const raw = frame.children;
    const children: unknown[] = [];
    for (let i = 0; i + 1 < raw.length; i += 4) {
      children.push(raw[i] as number, String(raw[i + 1]));
    }
    this.nodes.set(result, { start: frame.start, children });
    const pairs = children.length / 2;
    if (pairs > Object.keys(result).length) this.findDuplicates(children);
  }

  private findDuplicates(children: unknown[]): void {
    const seen = new Set<string>();
    for (let i = 0; i < children.length; i += 2) {
      const key = children[i + 1] as string;
      if (key === '<<') continue; // merge keys may repeat
      if (seen.has(key)) this.duplicateKeys.push({ key, offset: children[i] as number, documentIndex: this.documentIndex });
      seen.add(key);
    }
  }
}
