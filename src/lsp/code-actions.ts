// Code actions on a finding: its fix or suggestion as the edits `--fix` makes, and "ignore this rule
// here" as a `probe-lint.dev/ignore` annotation on the object; and a fix-all for the file.
import { CodeActionKind, type CodeAction, type Diagnostic, type TextEdit as LspTextEdit } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ProbeLintConfig } from '../engine/config.js';
import type { PatchOperation } from '../engine/rule.js';
import { IGNORE_ANNOTATION, parseIgnoreAnnotation } from '../engine/suppression.js';
import { changeEdits, fixSourceText, type DocumentChange } from '../fix/fix-source.js';
import type { LintSession } from '../lint/index.js';
import type { TextEdit } from '../fix/text-edits.js';
import { isObject } from '../model/json-value.js';
import { joinPointer } from '../model/pointer.js';
import type { LocatedFinding } from '../report/located.js';

export const FIX_ALL_KIND = `${CodeActionKind.SourceFixAll}.probe-lint`;

export interface ActionInput {
  document: TextDocument;
  path: string;
  session: LintSession;
  config: ProbeLintConfig;
  /** The findings whose diagnostics the request is about, each with its diagnostic. */
  findings: readonly { finding: LocatedFinding; diagnostic: Diagnostic }[];
  only: readonly string[] | undefined;
}

export function codeActions(input: ActionInput): CodeAction[] {
  const wanted = (kind: string) => input.only === undefined || input.only.some((asked) => kind === asked || kind.startsWith(`${asked}.`));
  const actions: CodeAction[] = [];
  if (wanted(CodeActionKind.QuickFix)) {
    for (const { finding, diagnostic } of input.findings) {
      if (finding.fix !== undefined && finding.fix.length > 0 && finding.fixKind !== undefined) {
        const edits = editsOf(input, { documentIndex: finding.resource.origin.documentIndex ?? 0, operations: finding.fix, rule: finding.rule });
        if (edits !== undefined)
          actions.push({
            title: `${finding.fixKind === 'fix' ? 'Fix' : 'Apply the suggestion of'} ${finding.rule}`,
            kind: CodeActionKind.QuickFix,
            diagnostics: [diagnostic],
            isPreferred: finding.fixKind === 'fix',
            edit: { changes: { [input.document.uri]: edits } },
          });
      }
      const ignore = ignoreOperations(finding, input.config);
      if (ignore !== undefined) {
        const edits = editsOf(input, { documentIndex: finding.resource.origin.documentIndex ?? 0, operations: ignore.operations, rule: finding.rule });
        if (edits !== undefined)
          actions.push({ title: ignore.title, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic], edit: { changes: { [input.document.uri]: edits } } });
      }
    }
  }
  if (wanted(FIX_ALL_KIND)) {
    const text = input.document.getText();
    const outcome = fixSourceText(input.path, text, input.session.findingsOfSource(input.path), ['fix']);
    if (outcome.changed)
      actions.push({
        title: `Fix all probe-lint problems that have a fix (${outcome.fixed.length})`,
        kind: FIX_ALL_KIND,
        edit: { changes: { [input.document.uri]: [lspEdit(input.document, replacementOf(text, outcome.text))] } },
      });
  }
  return actions;
}

function editsOf(input: ActionInput, change: DocumentChange): LspTextEdit[] | undefined {
  const outcome = changeEdits(input.path, input.document.getText(), [change]);
  if ('problem' in outcome || outcome.made.length === 0) return undefined;
  return outcome.edits.map((edit) => lspEdit(input.document, edit));
}

function lspEdit(document: TextDocument, edit: TextEdit): LspTextEdit {
  return { range: { start: document.positionAt(edit.start), end: document.positionAt(edit.end) }, newText: edit.text };
}

/** The one replacement that turns `before` into `after`: what differs between their common start and end. */
function replacementOf(before: string, after: string): TextEdit {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let end = 0;
  while (end < before.length - start && end < after.length - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end++;
  return { start, end: before.length - end, text: after.slice(start, after.length - end) };
}

/**
 * The annotation on the object's own metadata that exempts this finding: `probe-lint.dev/ignore.<container>`
 * for a container's finding, else `probe-lint.dev/ignore`; the rule joins the ids already listed,
 * before any reason. None where the config does not let annotations exempt this rule.
 */
function ignoreOperations(finding: LocatedFinding, config: ProbeLintConfig): { title: string; operations: PatchOperation[] } | undefined {
  const suppression = config.suppression;
  if (suppression?.annotations === false || (suppression?.annotationRules !== undefined && !suppression.annotationRules.includes(finding.rule)))
    return undefined;
  const key = finding.container === undefined ? IGNORE_ANNOTATION : `${IGNORE_ANNOTATION}.${finding.container}`;
  const title = `Ignore ${finding.rule} ${finding.container === undefined ? 'on this object' : `for container ${finding.container}`} (${key} annotation)`;
  const metadataPointer = joinPointer(finding.resource.pointer, 'metadata');
  const metadata = finding.resource.object.metadata as Record<string, unknown> | null | undefined;
  if (!isObject(metadata)) return { title, operations: [{ op: 'add', path: metadataPointer, value: { annotations: { [key]: finding.rule } } }] };
  const annotations = metadata.annotations;
  if (!isObject(annotations)) return { title, operations: [{ op: 'add', path: joinPointer(metadataPointer, 'annotations'), value: { [key]: finding.rule } }] };
  const path = joinPointer(metadataPointer, 'annotations', key);
  const current = annotations[key];
  if (typeof current !== 'string') return { title, operations: [{ op: 'add', path, value: finding.rule }] };
  const read = parseIgnoreAnnotation(key, current);
  if (read.rules.includes(finding.rule) || read.rules.includes('*')) return undefined;
  const hash = current.indexOf('#');
  const reason = hash === -1 ? '' : ` ${current.slice(hash)}`;
  return { title, operations: [{ op: 'replace', path, value: `${[...read.rules, finding.rule].join(', ')}${reason}` }] };
}
