import fastJsonPatch, { type Operation } from 'fast-json-patch';
import { parseAllDocuments } from 'yaml';
import type { Finding } from '../engine/finding.js';
import type { FixKind, PatchOperation } from '../engine/rule.js';
import { SourceFile } from '../source/parse/source-file.js';
import { JsonTextEditor } from './json-patch-text.js';
import { sameValue } from './same-value.js';
import { applyEdits, EditPlan, type TextEdit } from './text-edits.js';
import { editsFor, UnsupportedEdit, YAML_OPTIONS } from './yaml-patch.js';

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

/** The findings of one parsed text: how the lint pipeline reads and lints a file, given to --fix for each pass. */
export type FindingsOfSource = (source: SourceFile) => readonly Finding[];

/**
 * Applies the findings' RFC 6902 fixes of the kinds asked for to one file's text, pass after pass
 * until nothing is left to fix. Each pass is checked: the edited text must parse to exactly what
 * applying the same operations to the parsed documents gives; otherwise nothing of that pass is
 * kept. A byte-order mark and CRLF line ends are kept; untouched bytes stay as they were.
 */
export function fixSourceText(file: string, original: string, findingsOf: FindingsOfSource, kinds: readonly FixKind[] = ['fix']): FixOutcome {
  const bom = original.startsWith('\uFEFF') ? '\uFEFF' : '';
  const newline = newlineOf(original);
  let text = bom ? original.slice(1) : original;
  const fixed: string[] = [];
  // Decided once, when there is something to fix: a fixed JSON text is still JSON, and parsing a large dump again each pass costs.
  let json: boolean | undefined;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const source = new SourceFile(file, text);
    // An unparsable file is never written; the lint that follows reports where it breaks.
    if (source.error) return { text: original, changed: false, fixed: [] };
    const fixable = findingsOf(source).filter(
      (finding) => finding.fix !== undefined && finding.fix.length > 0 && finding.fixKind !== undefined && kinds.includes(finding.fixKind),
    );
    if (fixable.length === 0) break;
    json ??= isJsonText(text);
    const step = editDocuments(source, fixable.map(changeOfFinding), { newline, json });
    if ('problem' in step) return { text: original, changed: false, fixed: [], problem: step.problem };
    if (step.fixed.length === 0) break;
    text = step.text;
    for (const rule of step.fixed) fixed.push(rule);
  }
  const result = bom + text;
  return { text: result, changed: result !== original, fixed };
}

/** RFC 6902 operations on one document of a file, made for one rule (a finding's fix, or an editor's action). */
export interface DocumentChange {
  documentIndex: number;
  operations: readonly PatchOperation[];
  rule: string;
}

type Step = { text: string; edits: readonly TextEdit[]; fixed: string[] } | { problem: string };

function changeOfFinding(finding: Finding): DocumentChange {
  return { documentIndex: finding.resource.origin.documentIndex ?? 0, operations: finding.fix!, rule: finding.rule };
}

/**
 * The text edits that make `changes` to a file's text, checked as --fix checks them (the edited
 * text parses to what the operations give); what an editor applies for one finding's fix. Changes
 * that overlap one made before them are left out, as a pass of --fix leaves them for the next.
 */
export function changeEdits(
  file: string,
  text: string,
  changes: readonly DocumentChange[],
): { edits: readonly TextEdit[]; made: string[] } | { problem: string } {
  const bom = text.startsWith('\uFEFF') ? 1 : 0;
  const source = new SourceFile(file, bom ? text.slice(1) : text);
  if (source.error) return { problem: 'not fixed: the file does not parse' };
  const step = editDocuments(source, changes, { newline: newlineOf(text), json: isJsonText(source.text) });
  if ('problem' in step) return step;
  return { edits: step.edits.map((edit) => ({ ...edit, start: edit.start + bom, end: edit.end + bom })), made: step.fixed };
}

function editDocuments(source: SourceFile, changes: readonly DocumentChange[], { newline, json }: { newline: string; json: boolean }): Step {
  const yamlDocuments = json ? [] : parseAllDocuments(source.text, { ...YAML_OPTIONS, uniqueKeys: false });
  if (!json && (!Array.isArray(yamlDocuments) || yamlDocuments.length !== source.documents.length)) {
    return { problem: 'not fixed: the YAML documents could not be matched for editing' };
  }
  const expected = source.documents.map((document) => structuredClone(document.value));
  const applied = new Map<number, (readonly PatchOperation[])[]>();
  const jsonEditor = json ? new JsonTextEditor(source.text) : undefined;
  const planned = new EditPlan();
  const fixed: string[] = [];
  for (const change of changes) {
    const index = change.documentIndex;
    let edits: TextEdit[];
    try {
      edits = jsonEditor ? jsonEditor.editsFor(change.operations) : editsFor(source.text, yamlDocuments[index]!, change.operations);
    } catch (error) {
      if (error instanceof UnsupportedEdit) continue;
      throw error;
    }
    // A fix that touches text another fix already changes waits for the next pass.
    if (edits.some((edit) => planned.conflicts(edit))) continue;
    try {
      expected[index] = patchInPlace(expected[index], change.operations);
    } catch {
      // The fix does not apply to this document as it is now (a pointer through __proto__, a missing
      // parent); it may have applied in part, so the document is rebuilt from the fixes kept.
      expected[index] = (applied.get(index) ?? []).reduce(patchInPlace, structuredClone(source.documents[index]!.value));
      continue;
    }
    const kept = applied.get(index) ?? applied.set(index, []).get(index)!;
    kept.push(change.operations);
    for (const edit of edits) planned.add(newline === '\n' ? edit : { ...edit, text: edit.text.replace(/\r?\n/g, newline) });
    fixed.push(change.rule);
  }
  const text = applyEdits(source.text, planned.edits);
  const check = new SourceFile(source.file, text);
  const matches =
    !check.error && check.documents.length === expected.length && check.documents.every((document, index) => sameValue(document.value, expected[index]));
  if (!matches) return { problem: "not fixed: the edit could not be made without changing the file's layout (please report this)" };
  return { text, edits: planned.edits, fixed };
}

/** Patched in place: the value is already a copy, and fast-json-patch's own copy would expand every YAML alias. */
function patchInPlace(value: unknown, operations: readonly PatchOperation[]): unknown {
  return fastJsonPatch.applyPatch(value, structuredClone(operations) as Operation[], true, true).newDocument;
}

/** CRLF when every line ends so (new lines keep the file's ends), else LF. */
function newlineOf(text: string): string {
  return /\r\n/.test(text) && !/(?<!\r)\n/.test(text) ? '\r\n' : '\n';
}

/** A whole JSON text (one value): edited as JSON, whatever the file is called. */
function isJsonText(text: string): boolean {
  if (!/^\s*[{[]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
