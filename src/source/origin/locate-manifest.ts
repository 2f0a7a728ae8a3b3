// From a finding in kustomize's output back to the exact place in the manifest a kustomization
// declared, or in the patch that set the value.
import { isDeepStrictEqual } from 'node:util';
import { joinPointer, parsePointer, valueAt } from '../../model/pointer.js';
import type { Position } from '../../model/position.js';
import { isKubeObject, nameOf } from '../../model/resource.js';
import type { FileCache } from '../read/file-cache.js';

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
  const inOriginal = original === undefined ? undefined : pointerIn(original.value, rendered, pointer);
  if (inOriginal !== undefined && isDeepStrictEqual(valueAt(original!.value, inOriginal), want))
    return { file: declaring, position: original!.locate(inOriginal) };
  // The outermost patch first: the last to set the value, or the one that added the item.
  for (const patch of patches) {
    const document = matchingDocument(files, patch, rendered);
    const inPatch = document === undefined ? undefined : pointerIn(document.value, rendered, pointer);
    if (inPatch !== undefined && isDeepStrictEqual(valueAt(document!.value, inPatch), want)) return { file: patch, position: document!.locate(inPatch) };
    const operation = document === undefined ? inJsonPatch(files, patch, rendered, pointer, want) : undefined;
    if (operation !== undefined) return { file: patch, position: operation };
  }
  if (original === undefined) return undefined;
  return { file: declaring, position: original.locate(nearestPointerIn(original.value, rendered, pointer)) };
}

/**
 * The place in a JSON 6902 patch file (a list of operations) whose `add` or `replace` put what
 * `pointer` names into the rendered object: the operation's path leads to it (`-`, an append, to the
 * item the pointer names), and its value holds it — the same value, or for a whole list item, an
 * item of the same name (kustomize may change its image after).
 */
function inJsonPatch(files: FileCache, patch: string, rendered: unknown, pointer: string, want: unknown): Position | undefined {
  const source = files.source(patch);
  if (source === undefined) return undefined;
  const segments = parsePointer(pointer);
  for (const document of source.documents) {
    if (!Array.isArray(document.value)) continue;
    for (const [index, operation] of (document.value as unknown[]).entries()) {
      const { op, path, value } = (operation ?? {}) as { op?: unknown; path?: unknown; value?: unknown };
      if ((op !== 'add' && op !== 'replace') || typeof path !== 'string' || value === undefined) continue;
      const target = parsePointer(path);
      if (target.length > segments.length || !target.every((segment, at) => segment === segments[at] || (segment === '-' && /^\d+$/.test(segments[at]!))))
        continue;
      const at = valueAt(rendered, joinPointer('', ...segments.slice(0, target.length)));
      const rest = joinPointer('', ...segments.slice(target.length));
      const inValue = pointerIn(value, at, rest);
      if (inValue === undefined) continue;
      const held = valueAt(value, inValue);
      const sameItem = rest === '' && sameName(held, want);
      if (isDeepStrictEqual(held, want) || sameItem) return source.locate(document.index, joinPointer(`/${index}/value`, ...parsePointer(inValue)));
    }
  }
  return undefined;
}

function sameName(a: unknown, b: unknown): boolean {
  const name = (value: unknown) => (value !== null && typeof value === 'object' ? (value as { name?: unknown }).name : undefined);
  return typeof name(a) === 'string' && name(a) === name(b);
}

/**
 * The pointer in a manifest or strategic-merge patch to what `pointer` names in the rendered object:
 * list items that carry a name (containers, ports, env…) are matched by it, as the merge matches them,
 * so a patch's only container is the rendered object's second one when the names say so; undefined
 * when the document does not hold it.
 */
function pointerIn(document: unknown, rendered: unknown, pointer: string): string | undefined {
  let node = document;
  let renderedNode = rendered;
  const segments: string[] = [];
  for (const segment of parsePointer(pointer)) {
    if (Array.isArray(node) && Array.isArray(renderedNode)) {
      const item = renderedNode[Number(segment)] as { name?: unknown } | undefined;
      const name = item !== null && typeof item === 'object' ? item.name : undefined;
      const index =
        typeof name === 'string'
          ? node.findIndex((candidate) => (candidate as { name?: unknown } | null)?.name === name)
          : Number(segment) < node.length
            ? Number(segment)
            : -1;
      if (index === -1) return undefined;
      segments.push(String(index));
      node = node[index];
      renderedNode = item;
      continue;
    }
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, segment)) return undefined;
    segments.push(segment);
    node = (node as Record<string, unknown>)[segment];
    renderedNode = renderedNode !== null && typeof renderedNode === 'object' ? (renderedNode as Record<string, unknown>)[segment] : undefined;
  }
  return joinPointer('', ...segments);
}

/** The longest part of `pointer` the document holds (by name in named lists), for the nearest place. */
function nearestPointerIn(document: unknown, rendered: unknown, pointer: string): string {
  const segments = parsePointer(pointer);
  for (let length = segments.length; length > 0; length--) {
    const prefix = joinPointer('', ...segments.slice(0, length));
    const found = pointerIn(document, rendered, prefix);
    if (found !== undefined) return found;
  }
  return '';
}

/**
 * The document of `path` for the same object: same kind, and the same name, else the longest name
 * the rendered one contains (namePrefix, nameSuffix) — so `web-canary` is never taken for `web`.
 */
function matchingDocument(files: FileCache, path: string, rendered: unknown): { value: unknown; locate: (pointer: string) => Position } | undefined {
  const source = files.source(path);
  if (source === undefined || !isKubeObject(rendered)) return undefined;
  const renderedName = nameOf(rendered);
  let best: { document: (typeof source.documents)[number]; score: number } | undefined;
  for (const document of source.documents) {
    const value = document.value;
    if (!isKubeObject(value) || value.kind !== rendered.kind) continue;
    const name = nameOf(value);
    const score = name === renderedName ? Number.MAX_SAFE_INTEGER : name !== '' && renderedName.includes(name) ? name.length : -1;
    if (score >= 0 && (best === undefined || score > best.score)) best = { document, score };
  }
  if (best === undefined) return undefined;
  const { document } = best;
  return { value: document.value, locate: (pointer) => source.locate(document.index, pointer) };
}
