// Completion of rule ids inside a `probe-lint.dev/ignore` annotation's value, read from the line as
// typed (the YAML around it may not parse yet).
import { CompletionItemKind, type CompletionItem } from 'vscode-languageserver';
import { ruleDocsUrl } from '../engine/rule-docs.js';
import type { AnyRule } from '../engine/rule.js';

/** `probe-lint.dev/ignore[.container]: "a, b` up to the cursor, quoted or not, YAML or JSON; the reason after `#` is free text. */
// The blanks after the colon are the value's (trimmed below), so no two quantifiers can trade them.
const IGNORE_VALUE = /["']?probe-lint\.dev\/ignore(?:\.[A-Za-z0-9._-]*)?["']?\s*:(?:\s*["'])?([^#"']*)$/;

/** `beforeCursor`: the line's text up to the cursor. Items replace the id being typed. */
export function ignoreCompletions(rules: readonly AnyRule[], beforeCursor: string, line: number): CompletionItem[] {
  const match = IGNORE_VALUE.exec(beforeCursor);
  if (match === null) return [];
  const listed = match[1]!.split(',');
  const typed = listed.pop()!.trimStart();
  const taken = new Set(listed.map((id) => id.trim()));
  const range = { start: { line, character: beforeCursor.length - typed.length }, end: { line, character: beforeCursor.length } };
  const items: CompletionItem[] = rules
    .filter((rule) => !taken.has(rule.meta.id))
    .map((rule) => ({
      label: rule.meta.id,
      kind: CompletionItemKind.Value,
      detail: `${rule.meta.severity}: ${rule.meta.summary}`,
      documentation: { kind: 'markdown', value: `${rule.meta.remediation}\n\n[${rule.meta.id}](${ruleDocsUrl(rule.meta.id)})` },
      textEdit: { range, newText: rule.meta.id },
    }));
  if (!taken.has('*')) items.push({ label: '*', kind: CompletionItemKind.Value, detail: 'every rule', textEdit: { range, newText: '*' } });
  return items;
}
