import type { LintDocument, SourceIssue } from '../../model/document.js';
import { joinPointer } from '../../model/pointer.js';
import { resourcesOfDocument } from '../../model/resource.js';
import type { RenderedOrigin } from './rendered.js';
import type { SourceFile } from './source-file.js';

/** The engine's view of a parsed file: per document, its Kubernetes resources and the issues of its source text. */
export function lintDocumentsOf(source: SourceFile, rendered?: RenderedOrigin): LintDocument[] {
  return source.documents.map((document) => {
    const origin =
      rendered === undefined
        ? { file: source.file, documentIndex: document.index, locate: (pointer: string) => source.locate(document.index, pointer) }
        : rendered.originOf(document.index, document.value, source);
    const resources = resourcesOfDocument(document.value, origin);
    const sourceIssues: SourceIssue[] = [];
    if (resources.length > 0) {
      for (const duplicate of source.duplicateKeys) {
        if (duplicate.documentIndex !== document.index) continue;
        // The key's pointer: in rendered input the finding is placed anew in what the user edits (a template, a patch).
        const mapping = pointerTo(document.value, duplicate.mapping);
        const pointer = mapping === undefined ? undefined : joinPointer(mapping, duplicate.key);
        sourceIssues.push({
          kind: 'duplicate-key',
          position: duplicate.position,
          detail: { key: duplicate.key, ...(pointer === undefined ? {} : { pointer }) },
        });
      }
    }
    return { resources, sourceIssues };
  });
}

/** The pointer of `target` inside `root`, found by identity (each shared node once), or undefined. */
function pointerTo(root: unknown, target: object): string | undefined {
  const visited = new Set<object>();
  const walk = (node: unknown, pointer: string): string | undefined => {
    if (node === target) return pointer;
    if (node === null || typeof node !== 'object' || visited.has(node)) return undefined;
    visited.add(node);
    const entries: [string | number, unknown][] = Array.isArray(node) ? node.map((item, index) => [index, item]) : Object.entries(node);
    for (const [key, child] of entries) {
      const found = walk(child, joinPointer(pointer, key));
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return walk(root, '');
}
