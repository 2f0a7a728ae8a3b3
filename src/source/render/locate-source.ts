// From a finding in rendered output back to the file the user edits: a line in a Helm template
// (found by the keys on the finding's path, since the template is not YAML), or the exact place in
// the manifest a kustomization declared, or in the patch that set the value.
import { isDeepStrictEqual } from 'node:util';
import { parsePointer, valueAt } from '../../model/pointer.js';
import type { Position } from '../../model/position.js';
import { isKubeObject } from '../../model/resource.js';
import { readManifestFile } from '../inputs.js';
import { SourceFile } from '../source-file.js';

/** Reads each file once per run. */
export class FileCache {
  private readonly texts = new Map<string, string | undefined>();
  private readonly parsed = new Map<string, SourceFile | undefined>();

  text(path: string): string | undefined {
    if (!this.texts.has(path)) {
      // Regular files only, within the input size limit: a FIFO named by a template must not hang the run.
      const read = readManifestFile(path);
      this.texts.set(path, 'text' in read ? read.text : undefined);
    }
    return this.texts.get(path);
  }

  source(path: string): SourceFile | undefined {
    if (!this.parsed.has(path)) {
      const text = this.text(path);
      const source = text === undefined ? undefined : new SourceFile(path, text);
      this.parsed.set(path, source?.error ? undefined : source);
    }
    return this.parsed.get(path);
  }
}

/**
 * The line of a Helm template that most likely renders what `pointer` names (a template is not
 * YAML, so it cannot be parsed): the keys of the pointer's path are followed down the text as
 * `key:` lines, each below the last, and the deepest one written is the place — `livenessProbe:`
 * above a `toYaml .Values.livenessProbe` is what the user edits, or the values it pulls in.
 */
export function locateInTemplate(text: string, pointer: string, rendered: unknown): Position {
  const segments = parsePointer(pointer);
  const lines = text.split('\n');
  // A container is found by its name when the template writes it literally (`- name: exporter`);
  // the keys below it are then looked for from there on.
  const container = /^(.*\/(?:containers|initContainers|ephemeralContainers)\/\d+)(?:\/|$)/.exec(pointer)?.[1];
  const name = container === undefined ? undefined : (valueAt(rendered, container) as { name?: unknown } | undefined)?.name;
  let from = 0;
  let anchor: Position | undefined;
  if (typeof name === 'string') {
    const pattern = new RegExp(`^(\\s*(?:-\\s+)?)name:\\s*["']?${escape(name)}["']?\\s*(?:#.*)?$`);
    const index = lines.findIndex((line) => pattern.test(line));
    if (index !== -1) {
      from = index;
      anchor = { line: index + 1, column: pattern.exec(lines[index]!)![1]!.length + 1 };
    }
  }
  const keys = segments.slice(container === undefined || anchor === undefined ? 0 : parsePointer(container).length).filter((segment) => !/^\d+$/.test(segment));
  // Down the path key by key, each looked for below the one before: the last one written is the place.
  let found = anchor;
  for (const segment of keys) {
    const key = escape(segment);
    const pattern = new RegExp(`^(\\s*(?:-\\s+)?)(?:"${key}"|'${key}'|${key})\\s*:`);
    const index = lines.findIndex((line, number) => number >= from && pattern.test(line));
    if (index === -1) break;
    found = { line: index + 1, column: pattern.exec(lines[index]!)![1]!.length + 1 };
    from = index + 1;
  }
  return found ?? { line: 1, column: 1 };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Where a rendered object's value came from in the manifests a kustomization builds: the declaring
 * file when it holds that value, else the patch that does (overlays change probes with patches),
 * else the nearest place in the declaring file.
 */
export function locateInManifests(
  files: FileCache,
  declaring: string,
  patches: readonly string[],
  rendered: unknown,
  pointer: string,
): { file: string; position: Position } | undefined {
  const want = valueAt(rendered, pointer);
  const original = matchingDocument(files, declaring, rendered);
  if (original !== undefined && isDeepStrictEqual(valueAt(original.value, pointer), want)) return { file: declaring, position: original.locate(pointer) };
  for (const patch of patches) {
    const document = matchingDocument(files, patch, rendered);
    if (document !== undefined && pointerExists(document.value, pointer) && isDeepStrictEqual(valueAt(document.value, pointer), want)) {
      return { file: patch, position: document.locate(pointer) };
    }
  }
  return original === undefined ? undefined : { file: declaring, position: original.locate(pointer) };
}

function pointerExists(root: unknown, pointer: string): boolean {
  let node = root;
  for (const segment of parsePointer(pointer)) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, segment)) return false;
    node = (node as Record<string, unknown>)[segment];
  }
  return true;
}

/** The document of `path` for the same object: same kind, and a name the rendered one ends or begins with (namePrefix, nameSuffix). */
function matchingDocument(files: FileCache, path: string, rendered: unknown): { value: unknown; locate: (pointer: string) => Position } | undefined {
  const source = files.source(path);
  if (source === undefined || !isKubeObject(rendered)) return undefined;
  const renderedName = nameOf(rendered);
  for (const document of source.documents) {
    const value = document.value;
    if (!isKubeObject(value) || value.kind !== rendered.kind) continue;
    const name = nameOf(value);
    if (name === renderedName || (name !== '' && (renderedName.endsWith(name) || renderedName.startsWith(name) || renderedName.includes(name)))) {
      return { value, locate: (pointer) => source.locate(document.index, pointer) };
    }
  }
  return undefined;
}

function nameOf(object: { metadata?: { name?: unknown } }): string {
  const name = object.metadata?.name;
  return typeof name === 'string' ? name : '';
}
