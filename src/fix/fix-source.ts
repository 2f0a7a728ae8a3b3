import { isDeepStrictEqual } from 'node:util';
import fastJsonPatch from 'fast-json-patch';
import { parseAllDocuments } from 'yaml';
import type { Engine } from '../engine/engine.js';
import type { Finding } from '../engine/finding.js';
import { lintDocumentsOf } from '../source/documents.js';
import { SourceFile } from '../source/source-file.js';
import { applyEdits, overlaps, type TextEdit } from './text-edits.js';
import { editsFor, UnsupportedEdit } from './yaml-patch.js';

/** Fixes can enable or block one another (a startupProbe copied from a probe whose timeout is fixed next); ESLint stops at 10 passes too. */
const MAX_PASSES = 10;

export interface FixOutcome {
  text: string;
  changed: boolean;
  /** Rule ids of the fixes applied, one entry per finding fixed. */
  fixed: string[];
  /** Why the file was left as it was, when a fix could not be applied safely. */
  problem?: string;
}

/**
 * Applies the findings' RFC 6902 fixes to one file's text, pass after pass until nothing is left
 * to fix. Each pass is checked: the edited text must parse to exactly what applying the same
 * operations to the parsed documents gives; otherwise nothing of that pass is kept.
 */
export function fixSourceText(file: string, original: string, engine: Engine): FixOutcome {
  let text = original;
  const fixed: string[] = [];
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const source = new SourceFile(file, text);
    // An unparsable file is never written; the lint that follows reports where it breaks.
    if (source.error) return { text: original, changed: false, fixed: [] };
    const fixable = engine.lint(lintDocumentsOf(source)).findings.filter((finding) => finding.fix !== undefined && finding.fix.length > 0);
    if (fixable.length === 0) break;
    const step = isJson(file, text) ? fixJson(source, fixable) : fixYaml(source, fixable);
    if ('problem' in step) return { text: original, changed: false, fixed: [], problem: step.problem };
    if (step.fixed.length === 0) break;
    text = step.text;
    fixed.push(...step.fixed);
  }
  return { text, changed: text !== original, fixed };
}

type Step = { text: string; fixed: string[] } | { problem: string };

function fixYaml(source: SourceFile, findings: Finding[]): Step {
  const yamlDocuments = parseAllDocuments(source.text, { uniqueKeys: false });
  if (!Array.isArray(yamlDocuments) || yamlDocuments.length !== source.documents.length) {
    return { problem: 'not fixed: the YAML documents could not be matched for editing' };
  }
  const expected = source.documents.map((document) => structuredClone(document.value));
  const planned: TextEdit[] = [];
  const fixed: string[] = [];
  for (const finding of findings) {
    const index = finding.resource.origin.documentIndex ?? 0;
    let edits: TextEdit[];
    try {
      edits = editsFor(source.text, yamlDocuments[index]!, finding.fix!);
    } catch (error) {
      if (error instanceof UnsupportedEdit) continue;
      throw error;
    }
    // A fix that touches text another fix already changes waits for the next pass.
    if (edits.some((edit) => planned.some((other) => overlaps(edit, other)))) continue;
    expected[index] = fastJsonPatch.applyPatch(expected[index], structuredClone(finding.fix!), true, true).newDocument;
    planned.push(...edits);
    fixed.push(finding.rule);
  }
  const text = applyEdits(source.text, planned);
  const check = new SourceFile(source.file, text);
  const matches = !check.error && check.documents.length === expected.length && check.documents.every((document, index) => isDeepStrictEqual(document.value, expected[index]));
  if (!matches) return { problem: 'not fixed: the edit could not be made without changing the file\'s layout (please report this)' };
  return { text, fixed };
}

/** JSON has no comments to keep: patch the value and print it with the file's own indentation. */
function fixJson(source: SourceFile, findings: Finding[]): Step {
  const document = structuredClone(source.documents[0]?.value);
  const fixed: string[] = [];
  for (const finding of findings) {
    fastJsonPatch.applyPatch(document, structuredClone(finding.fix!), true, true);
    fixed.push(finding.rule);
  }
  const indent = /\n([ \t]+)"/.exec(source.text)?.[1] ?? '  ';
  const trailing = source.text.endsWith('\n') ? '\n' : '';
  return { text: JSON.stringify(document, null, indent) + trailing, fixed };
}

function isJson(file: string, text: string): boolean {
  return file.toLowerCase().endsWith('.json') || (file === '-' && /^\s*[{[]/.test(text));
}
