// One input file as the engine sees it: its documents, or why it cannot be linted. The CLI's lint
// and the language server read files the same way, so an editor shows what CI reports.
import type { LintDocument } from '../model/document.js';
import { lintDocumentsOf } from './documents.js';
import type { InputFile, InputProblem } from './inputs.js';
import { templateProblem } from './read-inputs.js';
import { SourceFile } from './source-file.js';

export interface FileDocuments {
  source: SourceFile;
  documents: LintDocument[];
  /** A Go template outside a chart, or YAML that does not parse in a file that could hold objects. */
  problem?: InputProblem;
}

export function documentsOfFile(file: InputFile): FileDocuments {
  return documentsOfSource(file, new SourceFile(file.path, file.text));
}

/** The same for a file already parsed (`source` is `file`'s text): what --fix reads after each pass. */
export function documentsOfSource(file: Omit<InputFile, 'text'> & { text: string }, source: SourceFile): FileDocuments {
  const template = templateProblem(file, source);
  if (template !== undefined) return { source, documents: [], problem: { path: file.path, message: template } };
  // A file that does not parse is an input error when it could hold a Kubernetes object; one that
  // never names a kind (mkdocs.yml with Python tags, a CloudFormation template with !Ref) is not a
  // manifest at all, and is passed over like any other document that is not an object.
  const problem =
    source.error && (file.rendered !== undefined || file.path === '-' || mayHoldObjects(file.text))
      ? { path: file.path, line: source.error.line, column: source.error.column, message: `invalid YAML: ${source.error.reason}` }
      : undefined;
  return { source, documents: lintDocumentsOf(source, file.rendered), ...(problem !== undefined ? { problem } : {}) };
}

/** Whether the text names a kind anywhere (`kind:` as a key, or `"kind"` in JSON): what every Kubernetes object has. */
function mayHoldObjects(text: string): boolean {
  return /^[ \t-]*["']?kind["']?[ \t]*:/m.test(text) || /"kind"\s*:/.test(text);
}
