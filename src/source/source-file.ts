import jsYaml from 'js-yaml';
import { LineIndex, type Position } from './line-index.js';
import { PositionRecorder } from './yaml-positions.js';
import { parsePointer } from '../model/pointer.js';

/** YAML 1.2 core scalars plus merge keys: what Kubernetes manifests use, without js-yaml's timestamp and binary types. */
const jsYamlTypes = (jsYaml as unknown as { types: { merge: jsYaml.Type } }).types;
const MANIFEST_SCHEMA = jsYaml.CORE_SCHEMA.extend([jsYamlTypes.merge]);

export interface ParseError {
  file: string;
  line: number;
  column: number;
  reason: string;
}

export interface DuplicateKeyIssue {
  key: string;
  position: Position;
  /** Index of the document that holds it. */
  documentIndex: number;
}

export interface SourceDocument {
  /** 0-based index in the stream, empty documents included. */
  index: number;
  value: unknown;
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
    this.parse();
  }

  private parse(): void {
    try {
      this.parseStream(this.text, 0);
    } catch (error) {
      if (!(error instanceof jsYaml.YAMLException)) throw error;
      // js-yaml composes the whole stream before returning any document, so one syntax error
      // would lose them all. Parse again one document at a time to keep those before the error.
      this.documents.length = 0;
      this.duplicateKeys.length = 0;
      this.parseDocumentByDocument();
    }
  }

  private parseDocumentByDocument(): void {
    const starts = documentStarts(this.text);
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
    this.recorder.baseOffset = baseOffset;
    this.recorder.documentIndex = this.documents.length;
    // `json: true` lets a later duplicate key win, as Kubernetes' decoders do; the recorder
    // still sees every key and reports the duplicates.
    jsYaml.loadAll(text, (value) => this.documents.push({ index: this.documents.length, value }), {
      filename: this.file,
      schema: MANIFEST_SCHEMA,
      json: true,
      listener: this.recorder.listener,
    });
    for (const duplicate of this.recorder.duplicateKeys.slice(duplicatesBefore)) {
      this.duplicateKeys.push({ key: duplicate.key, position: this.positionAt(duplicate.offset), documentIndex: duplicate.documentIndex });
    }
  }

  /**
   * Line and column of the node a JSON Pointer names inside a document: the key for a mapping
   * member, the item for a sequence element. A pointer to a field that does not exist resolves
   * to its nearest existing ancestor.
   */
  locate(documentRoot: unknown, pointer: string): Position {
    let offset = this.recorder.nodes.get(documentRoot as object)?.start ?? 0;
    let node: unknown = documentRoot;
    for (const segment of parsePointer(pointer)) {
      if (node === null || typeof node !== 'object') break;
      const children = this.recorder.nodes.get(node)?.children;
      if (children === undefined) break;
      const childOffset = Array.isArray(node) ? itemOffset(children, Number(segment)) : keyOffset(children, segment);
      if (childOffset === undefined) break;
      offset = childOffset;
      node = (node as Record<string, unknown>)[segment];
    }
    return this.positionAt(offset);
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

function itemOffset(children: unknown[], index: number): number | undefined {
  return Number.isInteger(index) ? (children[index * 2] as number | undefined) : undefined;
}

function keyOffset(children: unknown[], key: string): number | undefined {
  // The last occurrence wins, matching the value js-yaml kept for a duplicated key.
  for (let i = children.length - 2; i >= 0; i -= 2) {
    if (children[i + 1] === key) return children[i] as number;
  }
  return undefined;
}
