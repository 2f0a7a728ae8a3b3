import type { LintDocument, SourceIssue } from '../model/document.js';
import { resourcesOfDocument } from '../model/resource.js';
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
        if (duplicate.documentIndex === document.index)
          sourceIssues.push({ kind: 'duplicate-key', position: duplicate.position, detail: { key: duplicate.key } });
      }
    }
    return { resources, sourceIssues };
  });
}
