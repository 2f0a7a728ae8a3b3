// What the CLI reports for one file, computed for text an editor holds (saved or not).
import { ruleFailureMessage, type Engine } from '../engine/engine.js';
import type { LintDocument } from '../model/document.js';
import { locate, type LocatedFinding } from '../report/located.js';
import { documentsOfFile } from '../source/file-documents.js';
import type { InputProblem } from '../source/inputs.js';
import type { SourceFile } from '../source/source-file.js';

export interface TextLint {
  source: SourceFile;
  documents: LintDocument[];
  findings: LocatedFinding[];
  problems: InputProblem[];
}

export function lintText(engine: Engine, path: string, text: string): TextLint {
  const read = documentsOfFile({ path, text });
  const problems = read.problem === undefined ? [] : [read.problem];
  const result = engine.lint(read.documents);
  for (const failure of result.failures) problems.push({ path, message: ruleFailureMessage(failure) });
  return { source: read.source, documents: read.documents, findings: result.findings.map(locate), problems };
}
