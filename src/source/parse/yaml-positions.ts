// Positions of YAML nodes, recorded while js-yaml parses.
//
// js-yaml's `listener` fires 'open' and 'close' around every node it composes. At its close each
// container with children is written as one record into a flat Int32Array: for a sequence, its
// count and (offset, record) per item; for a mapping, its count and (key offset, key id, record)
// per member, where a child's record is its own record's index (NONE for a scalar or an empty
// container) and a key id indexes a table of distinct keys (files share it). A JSON Pointer is
// turned into line:column by walking the records, without a second parse. This runs on the hot
// path: it allocates nothing per node. (A JavaScript array per container took 38 MB on 10,000
// Deployments, the records 10 MB: a key is 4 bytes instead of a string of its own, a member 12
// bytes instead of 24, and there is no array header per container. Keeping positions on the parsed
// objects, through a WeakMap or a symbol property, cost a third to a half of the parse.)

/** A child with no record: a scalar, or a container without children. */
const NONE = -1;
/** Texts from this many characters on have their records in a buffer that grows in place. */
const LARGE_TEXT = 256 * 1024;
/** What a recorder holds before it is prepared, and its pending list after it has finished. */
const NO_INTS = new Int32Array(0);
/** Ints of one item of a sequence's record, and of one member of a mapping's. */
const ITEM = 2;
const MEMBER = 3;
/** A workspace whose small-file records grew past this many ints is not kept for the next parse. */
const KEPT_RECORDS = 64 * 1024;

/**
 * What a recorder writes during a parse and does not keep after it: the records of a small file
 * (copied out at their exact size when it finishes), the open nodes' children, and the stamps that
 * find repeated keys. One workspace serves one parse after another (a parse is synchronous): fresh
 * arrays per file, and their doublings, cost a corpus of 2,186 small files more than the copy out.
 */
interface Workspace {
  records: Int32Array<ArrayBuffer>;
  pendingInts: Int32Array<ArrayBuffer>;
  /** Per key id, the last mapping (by its stamp) that held it: what finds a key written twice. */
  stamps: Int32Array<ArrayBuffer>;
  /** Never reset between parses, so a stamp left by an earlier file never matches. */
  stamp: number;
}

/**
 * Distinct keys, each with its id. Files share one table: their keys are mostly the same few hundred
 * (apiVersion, metadata, containers…), and a table per file built them again for each. A file keeps
 * the table its records were written with; past SHARED_KEYS keys or SHARED_KEY_CHARACTERS characters
 * of them, the next file starts a new one, so a long-running process (the language server) holds a
 * bounded table whatever keys its files bring.
 */
interface KeyTable {
  ids: Map<string, number>;
  keys: string[];
  characters: number;
}
const SHARED_KEYS = 64 * 1024;
const SHARED_KEY_CHARACTERS = 1024 * 1024;
let currentKeyTable: KeyTable = { ids: new Map(), keys: [], characters: 0 };

function currentKeys(): KeyTable {
  if (currentKeyTable.keys.length >= SHARED_KEYS || currentKeyTable.characters >= SHARED_KEY_CHARACTERS) {
    currentKeyTable = { ids: new Map(), keys: [], characters: 0 };
  }
  return currentKeyTable;
}

/** The workspace no parse is using, if any: a recorder takes it when it prepares and gives it back when it finishes. */
let spareWorkspace: Workspace | undefined;

function takeWorkspace(): Workspace {
  const workspace = spareWorkspace ?? { records: new Int32Array(1024), pendingInts: new Int32Array(64), stamps: new Int32Array(256), stamp: 0 };
  spareWorkspace = undefined;
  return workspace;
}

export interface DuplicateKey {
  key: string;
  offset: number;
  /** The mapping that holds the key twice, as parsed: where it sits in the document is found from it. */
  mapping: object;
  /** Index of the document in the stream (counting from documentIndex at the start). */
  documentIndex: number;
}

/** Where a node starts and the record of its children (NONE when it has none). */
export interface NodePositions {
  offset: number;
  record: number;
}

/** Records positions during js-yaml parses. Pass `listener` in js-yaml's load options. */
export class PositionRecorder {
  readonly duplicateKeys: DuplicateKey[] = [];
  /** Added to every position: set when a stream is parsed one document at a time. */
  baseOffset = 0;
  /** Index of the document being composed; a root node's close moves it on. */
  documentIndex = 0;
  /** Per document index, its root's offset and record. */
  private readonly rootOffsets: number[] = [];
  private readonly rootRecords: number[] = [];
  /**
   * The records, in a buffer that grows in place up to a bound set from the text's length: growing
   * by copies left the old arrays as garbage (three times the records' size in the heap at the
   * peak; 38 MB more RSS on a 16 MB file for 9 MB of records). Only the pages written take memory.
   */
  private records: Int32Array<ArrayBuffer> = NO_INTS;
  private recordsBuffer = NO_INTS.buffer;
  private recordsLength = 0;
  /** The table of distinct keys the records' key ids index (shared with the files parsed before). */
  private keyTable = currentKeyTable;
  /** Scratch arrays, held from prepare to finish. */
  private workspace: Workspace | undefined;
  /** Open nodes, two slots each: start offset, then how many open children there were when it opened. */
  private stack: number[] = [];
  /**
   * The children of every open node, end to end (a node's own are the last ones while it is open):
   * (offset, record) in `pendingInts`, and the parsed value in `pendingValues` (a mapping's keys are
   * read from it at the mapping's close).
   */
  private pendingInts: Int32Array<ArrayBuffer> = NO_INTS;
  private pendingValues: unknown[] = [];
  private pendingCount = 0;

  readonly listener = (event: 'open' | 'close', state: { position: number; result: unknown }): void => {
    const stack = this.stack;
    if (event === 'open') {
      stack.push(state.position + this.baseOffset, this.pendingCount);
      return;
    }
    const from = stack.pop()!;
    const start = stack.pop()!;
    const result = state.result;
    const count = this.pendingCount - from;
    let record = NONE;
    if (count > 0) {
      // js-yaml wraps some nodes (a flow collection at the top level) in a second composeNode with
      // the same result: the inner node's record is the real one.
      if (count === 1 && this.pendingValues[from] === result && result !== null && typeof result === 'object') record = this.pendingInts[2 * from + 1]!;
      else record = Array.isArray(result) ? this.writeSequence(from, count) : this.writeMapping(from, count, result);
    }
    this.pendingCount = from;
    if (stack.length === 0) {
      this.rootOffsets[this.documentIndex] = start;
      this.rootRecords[this.documentIndex++] = record;
      return;
    }
    if (2 * from + 2 > this.pendingInts.length) this.pendingInts = this.workspace!.pendingInts = grown(this.pendingInts, 2 * from + 2);
    this.pendingInts[2 * from] = start;
    this.pendingInts[2 * from + 1] = record;
    this.pendingValues[from] = result;
    this.pendingCount = from + 1;
  };

  /** Reset between streams (a parse that failed half-way leaves open frames). */
  reset(): void {
    this.stack = [];
    this.pendingValues = [];
    this.pendingCount = 0;
  }

  /**
   * Before the first stream: room for the records of `textLength` characters of YAML. A node takes
   * at least one character, and at most two ints in its parent's record and one of its own.
   */
  prepare(textLength: number): void {
    const workspace = (this.workspace = takeWorkspace());
    this.keyTable = currentKeys();
    // A small file's records are written in the workspace, which grows by copies (reserving room
    // costs a system call, which a corpus of small files would pay per file).
    if (textLength < LARGE_TEXT) this.records = workspace.records;
    else this.records = new Int32Array(new ArrayBuffer(4096, { maxByteLength: 4 * (3 * textLength + 64) }));
    this.recordsBuffer = this.records.buffer;
    this.pendingInts = workspace.pendingInts;
  }

  /** After the last stream: the records at their exact size, and nothing of the parse kept. */
  finish(): void {
    this.reset();
    this.pendingInts = NO_INTS;
    if (this.recordsBuffer.resizable) this.recordsBuffer.resize(4 * this.recordsLength);
    else {
      if (this.workspace !== undefined) this.workspace.records = this.records.length <= KEPT_RECORDS ? this.records : new Int32Array(1024);
      this.records = this.records.slice(0, this.recordsLength);
      this.recordsBuffer = this.records.buffer;
    }
    spareWorkspace = this.workspace;
    this.workspace = undefined;
  }

  /** A document's root: its offset and record; undefined when no document has that index. */
  root(documentIndex: number): NodePositions | undefined {
    const offset = this.rootOffsets[documentIndex];
    return offset === undefined ? undefined : { offset, record: this.rootRecords[documentIndex]! };
  }

  /** A mapping member found by key: the key's offset and the value's record; the last occurrence wins, like the value js-yaml kept. */
  member(record: number, key: string): NodePositions | undefined {
    const id = this.keyTable.ids.get(key);
    if (record === NONE || id === undefined) return undefined;
    const records = this.records;
    for (let at = record + 1 + (records[record]! - 1) * MEMBER; at > record; at -= MEMBER) {
      if (records[at + 1] === id) return { offset: records[at]!, record: records[at + 2]! };
    }
    return undefined;
  }

  /** A sequence item: its offset and record. */
  item(record: number, index: number): NodePositions | undefined {
    if (record === NONE || !Number.isInteger(index) || index < 0 || index >= this.records[record]!) return undefined;
    const at = record + 1 + index * ITEM;
    return { offset: this.records[at]!, record: this.records[at + 1]! };
  }

  private writeSequence(from: number, count: number): number {
    const record = this.reserve(1 + count * ITEM);
    const records = this.records;
    const pending = this.pendingInts;
    records[record] = count;
    for (let item = 0; item < count; item++) {
      records[record + 1 + item * ITEM] = pending[2 * (from + item)]!;
      records[record + 2 + item * ITEM] = pending[2 * (from + item) + 1]!;
    }
    return record;
  }

  /** js-yaml may leave an empty trailing node after a mapping's last pair (before a "---"): it is dropped. */
  private writeMapping(from: number, count: number, mapping: unknown): number {
    const members = Math.floor(count / 2);
    const record = this.reserve(1 + members * MEMBER);
    const records = this.records;
    const pending = this.pendingInts;
    records[record] = members;
    for (let member = 0; member < members; member++) {
      const key = from + 2 * member;
      const at = record + 1 + member * MEMBER;
      records[at] = pending[2 * key]!;
      records[at + 1] = this.keyId(this.pendingValues[key]);
      records[at + 2] = pending[2 * key + 3]!;
    }
    if (members > 1 && mapping !== null && typeof mapping === 'object') this.findDuplicates(mapping, record);
    return record;
  }

  /** The key's id in the table of distinct keys (a key is read as js-yaml keys the object: as a string). */
  private keyId(value: unknown): number {
    const key = typeof value === 'string' ? value : String(value);
    const table = this.keyTable;
    let id = table.ids.get(key);
    if (id === undefined) {
      id = table.keys.length;
      table.keys.push(key);
      table.ids.set(key, id);
      table.characters += key.length;
    }
    return id;
  }

  /** Room for `size` more ints; returns where they start. */
  private reserve(size: number): number {
    const at = this.recordsLength;
    if (at + size > this.records.length) {
      const bytes = Math.max(4 * (at + size), 2 * this.recordsBuffer.byteLength);
      if (this.recordsBuffer.resizable) this.recordsBuffer.resize(Math.min(this.recordsBuffer.maxByteLength, bytes));
      else {
        this.records = grown(this.records, bytes / 4);
        this.recordsBuffer = this.records.buffer;
        if (this.workspace !== undefined) this.workspace.records = this.records;
      }
    }
    this.recordsLength = at + size;
    return at;
  }

  /**
   * Keys written twice in one mapping, each after the first (js-yaml, parsing with `json`, keeps the
   * last value; Kubernetes' decoders do too). Found from the key ids: a mapping stamps each id it
   * meets, so a repeat costs one int per member, never a string compared or hashed again. (js-yaml's
   * own check threw at the first repeat, so a file with one was parsed twice; and counting the
   * mapping's keys to decide whether to look missed a repeat beside a merge key, whose merged keys
   * made up the count.)
   */
  private findDuplicates(mapping: object, record: number): void {
    const records = this.records;
    const members = records[record]!;
    const workspace = this.workspace!;
    const table = this.keyTable;
    if (table.keys.length > workspace.stamps.length) workspace.stamps = grown(workspace.stamps, table.keys.length);
    const stamps = workspace.stamps;
    // At the end of int32's range the stamps start again from a clean slate.
    if (workspace.stamp === 0x7fffffff) {
      stamps.fill(0);
      workspace.stamp = 0;
    }
    const stamp = ++workspace.stamp;
    // Merge keys may repeat (`<<: *a` twice merges both).
    const merge = table.ids.get('<<');
    for (let at = record + 1; at < record + 1 + members * MEMBER; at += MEMBER) {
      const id = records[at + 1]!;
      if (id === merge) continue;
      if (stamps[id] === stamp) this.duplicateKeys.push({ key: table.keys[id]!, offset: records[at]!, mapping, documentIndex: this.documentIndex });
      stamps[id] = stamp;
    }
  }
}

/** A copy of `array` with room for at least `needed` ints (doubling, so appends stay linear). */
function grown(array: Int32Array<ArrayBuffer>, needed: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(Math.max(needed, array.length * 2));
  next.set(array);
  return next;
}
