// What the CLI reports for one file, for text an editor holds (saved or not).
import { resultProblems, type Engine, type LintResult } from '../engine/engine.js';
import type { LintDocument } from '../model/document.js';
import type { LocatedFinding } from '../report/located.js';
import { locate } from './locate.js';
import type { FileDocuments } from '../source/file-documents.js';
import type { InputProblem } from '../source/read/inputs.js';
import type { SourceFile } from '../source/parse/source-file.js';

export interface TextLint {
  source: SourceFile;
  documents: LintDocument[];
  /** The engine's findings, located. */
  findings: LocatedFinding[];
  problems: InputProblem[];
  /** What the engine returned: suppressed findings, rule failures and stopped lints too. */
  result: LintResult;
}

export function lintText(engine: Engine, read: FileDocuments): TextLint {
  const path = read.source.file;
  const problems = read.problem === undefined ? [] : [read.problem];
  const result = engine.lint(read.documents);
  for (const { kind, message } of resultProblems(result)) problems.push({ path, kind, message });
  return { source: read.source, documents: read.documents, findings: result.findings.map(locate), problems, result };
}
