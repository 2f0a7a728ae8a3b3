// A template, values file or patch is linted through the chart or kustomization that owns it, as a
// pre-commit hook given that one file lints it: rendered in the sandbox, findings mapped back to
// the files the user edits.
import { resolve } from 'node:path';
import { ruleFailureMessage, type Engine } from '../engine/engine.js';
import { locate, withoutRepeats, type LocatedFinding } from '../report/located.js';
import { documentsOfFile } from '../source/file-documents.js';
import type { InputProblem } from '../source/inputs.js';
import { readInputs, type RenderOptions } from '../source/read-inputs.js';
import { discover } from '../source/render/discover.js';
import type { PathExclusion } from '../source/excluded-paths.js';

/** The chart or kustomization directories that own a file; empty for a plain manifest. */
export function owningUnits(path: string): string[] {
  const found = discover([path]);
  return [...found.charts.map((chart) => resolve(chart.directory)), ...found.kustomizations.map((unit) => resolve(unit.directory))].sort();
}

export interface UnitLint {
  /** Findings by the absolute path of the file they point at. */
  findings: Map<string, LocatedFinding[]>;
  /** Problems rendering or reading, with the absolute path they name. */
  problems: InputProblem[];
  notices: string[];
}

/** Renders what owns `path` and lints the result; the engine is the one for `path`'s config. */
export async function lintThroughUnit(
  engine: Engine,
  path: string,
  render: RenderOptions,
  env: Readonly<Record<string, string | undefined>>,
  exclusion: PathExclusion,
): Promise<UnitLint> {
  const read = await readInputs([path], { readStdin: () => '', env, render, exclusion });
  const problems: InputProblem[] = read.problems.map((problem) => ({ ...problem, path: resolve(problem.path) }));
  const documents = [];
  for (const file of read.files) {
    const fileDocuments = documentsOfFile(file);
    if (fileDocuments.problem !== undefined) problems.push({ ...fileDocuments.problem, path: resolve(fileDocuments.problem.path) });
    documents.push(...fileDocuments.documents);
  }
  const result = engine.lint(documents);
  for (const failure of result.failures) problems.push({ path, message: ruleFailureMessage(failure) });
  const findings = new Map<string, LocatedFinding[]>();
  for (const finding of withoutRepeats(result.findings.map(locate))) {
    if (finding.file === undefined) continue;
    const file = resolve(finding.file);
    (findings.get(file) ?? findings.set(file, []).get(file)!).push(finding);
  }
  return { findings, problems, notices: read.notices };
}
