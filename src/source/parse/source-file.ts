import jsYaml from 'js-yaml';
import { parsePointer } from '../../model/pointer.js';
import type { Position } from '../../model/position.js';
import { LineIndex } from './line-index.js';
import { flowQuestionMark } from './go-yaml-strictness.js';
import { KUBECTL_SCHEMA } from './yaml11-schema.js';
import { PositionRecorder } from './yaml-positions.js';

export interface ParseError {
  file: string;
  line: number;
  column: number;
  reason: string;
}

export interface DuplicateKeyIssue {
  key: string;
  position: Position;
  /** The mapping that holds it, as parsed. */
  mapping: object;
  /** Index of the document that holds it. */
  documentIndex: number;
}

/**
 * One parsed document. A class, not an object literal: V8 counts how many objects of each literal
 * outlive a collection and, past 85%, allocates that literal's objects in the old generation from
 * then on. A 16 MB file's 20,000 documents, all held until its parse ends, tipped it; every later
 * file's documents were then born old, and each held its young parsed value alive through every
 * young collection until a full one, so collections copied everything (the corpus parsed after the
 * 16 MB file: young collections 5 times slower). Objects made by `new` carry no such count.
 */
export class SourceDocument {
  constructor(
    /** 0-based index in the stream, empty documents included. */
    readonly index: number,
    public value: unknown,
  ) {}
}

/**
 * One YAML or JSON file (or stdin), parsed once. Holds the documents and answers
 * "where is this JSON Pointer?" from positions recorded during the parse.
 */
export class SourceFile {
  readonly documents: SourceDocument[] = [];
  readonly duplicateKeys: DuplicateKeyIssue[] = [];
  error: ParseError | undefined;
  private readonly lines: LineIndex;
  private readonly recorder = new PositionRecorder();

  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    this.lines = new LineIndex(text);
    this.recorder.prepare(text.length);
    this.parse();
    this.recorder.finish();
  }

  private parse(): void {
    this.parseAsJsYaml();
    if (this.error !== undefined) return;
    // What go-yaml refuses that js-yaml reads (go-yaml-strictness.ts): the documents before it are kept, as for any syntax error.
    const strictness = flowQuestionMark(this.text);
    if (strictness === undefined) return;
    const position = this.positionAt(strictness.offset);
    this.error = { file: this.file, line: position.line, column: position.column, reason: strictness.reason };
    const kept = this.documents.filter((document) => (this.recorder.root(document.index)?.offset ?? 0) < strictness.offset);
    this.documents.length = Math.max(0, kept.length - 1);
  }

  private parseAsJsYaml(): void {
    // A stream of JSON objects one after another (`kubectl get -o json` per object, concatenated) is
    // read as kubectl's YAMLOrJSONDecoder reads it: each value in turn. As YAML it is one broken document.
    const jsonValues = jsonStreamStarts(this.text);
    if (jsonValues !== undefined) {
      this.parseDocumentByDocument(jsonValues);
      return;
    }
    try {
      this.parseStream(this.text, 0);
    } catch (error) {
      if (!(error instanceof jsYaml.YAMLException)) throw error;
      // js-yaml composes the whole stream before returning any document, so for a syntax error this
      // goes one document at a time to keep those before the error.
      this.documents.length = 0;
      this.duplicateKeys.length = 0;
      this.parseDocumentByDocument(documentStarts(this.text));
    }
  }

  private parseDocumentByDocument(starts: readonly number[]): void {
    for (let i = 0; i < starts.length; i++) {
      const start = starts[i]!;
      const chunk = this.text.slice(start, starts[i + 1] ?? this.text.length);
      try {
        this.parseStream(chunk, start);
      } catch (error) {
        if (!(error instanceof jsYaml.YAMLException)) throw error;
        const mark = (error as jsYaml.YAMLException & { mark?: { line: number; column: number } }).mark;
        this.error = {
          file: this.file,
          line: (mark?.line ?? 0) + this.lines.positionOf(start).line,
          column: (mark?.column ?? 0) + 1,
          reason: error.reason,
        };
        return;
      }
    }
  }

  /** Parses `text`, which starts at `baseOffset` in the file, appending its documents. */
  private parseStream(text: string, baseOffset: number): void {
    const duplicatesBefore = this.recorder.duplicateKeys.length;
    this.recorder.reset();
    // js-yaml drops a leading byte-order mark before it counts positions.
    this.recorder.baseOffset = baseOffset + (text.charCodeAt(0) === 0xfeff ? 1 : 0);
    this.recorder.documentIndex = this.documents.length;
    // `json: true` lets a later duplicate key win, as Kubernetes' decoders do, instead of throwing:
    // the recorder reports each one.
    jsYaml.loadAll(text, (value) => this.documents.push(new SourceDocument(this.documents.length, value)), {
      filename: this.file,
      schema: KUBECTL_SCHEMA,
      json: true,
      listener: this.recorder.listener,
    });
    for (const duplicate of this.recorder.duplicateKeys.slice(duplicatesBefore)) {
      this.duplicateKeys.push({
        key: duplicate.key,
        position: this.positionAt(duplicate.offset),
        mapping: duplicate.mapping,
        documentIndex: duplicate.documentIndex,
      });
    }
  }

  /**
   * Line and column of the node a JSON Pointer names inside a document: the key for a mapping
   * member, the item for a sequence element. A pointer to a field that does not exist resolves
   * to its nearest existing ancestor.
   */
  locate(documentIndex: number, pointer: string): Position {
    const root = this.recorder.root(documentIndex);
    if (root === undefined) return this.positionAt(0);
    let at = root;
    let node: unknown = this.documents[documentIndex]?.value;
    for (const segment of parsePointer(pointer)) {
      const next = Array.isArray(node) ? this.recorder.item(at.record, Number(segment)) : this.recorder.member(at.record, segment);
      if (next === undefined) break;
      at = next;
      node = (node as Record<string, unknown> | null)?.[segment];
    }
    return this.positionAt(at.offset);
  }

  /** Lets a document's value go (its positions stay, for the findings already located). */
  forget(documentIndex: number): void {
    const document = this.documents[documentIndex];
    if (document !== undefined) document.value = undefined;
  }

  /** Offset of a document's root node in the text. */
  documentOffset(documentIndex: number): number | undefined {
    return this.recorder.root(documentIndex)?.offset;
  }

  positionAt(offset: number): Position {
    return this.lines.positionOf(this.lines.skipSeparation(offset));
  }
}

/** Offsets where documents start: 0 and each line that begins with the "---" marker. */
function documentStarts(text: string): number[] {
  const starts = [0];
  const marker = /^---(?=[ \t\r\n]|$)/gm;
  for (let match = marker.exec(text); match !== null; match = marker.exec(text)) {
    if (match.index > 0) starts.push(match.index);
  }
  return starts;
}

/**
 * Offsets of the values of a stream of two or more JSON objects (or arrays) separated only by
 * whitespace; undefined for anything else (a single JSON document, YAML). One linear scan.
 */
export function jsonStreamStarts(text: string): number[] | undefined {
  const starts: number[] = [];
  let index = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const skipSpace = () => {
    while (index < text.length && /\s/.test(text[index]!)) index++;
  };
  skipSpace();
  while (index < text.length) {
    if (text[index] !== '{' && text[index] !== '[') return undefined;
    starts.push(index);
    let depth = 0;
    let inString = false;
    for (; index < text.length; index++) {
      const character = text[index]!;
      if (inString) {
        if (character === '\\') index++;
        else if (character === '"') inString = false;
      } else if (character === '"') inString = true;
      else if (character === '{' || character === '[') depth++;
      else if (character === '}' || character === ']') {
        depth--;
        if (depth === 0) {
          index++;
          break;
        }
      }
    }
    if (depth !== 0) return undefined;
    skipSpace();
  }
  return starts.length > 1 ? starts : undefined;
}
