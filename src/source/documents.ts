import type { LintDocument } from '../engine/engine.js';
import { resourcesOfDocument } from '../model/resource.js';
import type { SourceFile } from './source-file.js';

/** The engine's view of a parsed file: per document, its Kubernetes resources and duplicate keys. */
export function lintDocumentsOf(source: SourceFile): LintDocument[] {
  return source.documents.map((document) => {
    const locate = (pointer: string) => source.locate(document.index, pointer);
    const resources = resourcesOfDocument(document.value, { file: source.file, documentIndex: document.index, locate });
    const duplicateKeys = resources.length ? source.duplicateKeys.filter((duplicate) => duplicate.documentIndex === document.index) : [];
    return { resources, duplicateKeys };
  });
}
