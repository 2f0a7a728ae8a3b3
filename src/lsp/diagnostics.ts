// Findings and input problems as LSP diagnostics: the field's range, the severity, the rule id with
// a link to its docs. A finding's position is where its field's key starts (1-based, in UTF-16 code
// units, as LSP counts by default); the range covers that key.
import { DiagnosticSeverity, type Diagnostic, type Range } from 'vscode-languageserver';
import { ruleDocsUrl } from '../engine/rule-docs.js';
import type { Severity } from '../engine/rule.js';
import type { LocatedFinding } from '../report/located.js';

export const SOURCE = 'probe-lint';

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
};

/** What a diagnostic carries back to the server in a code action request. */
export interface DiagnosticData {
  rule: string;
  messageId: string;
  container?: string;
}

/** `lineText(n)` gives line n (0-based) of the text the positions are in. */
export function findingDiagnostic(finding: LocatedFinding, lineText: (line: number) => string): Diagnostic {
  const data: DiagnosticData = {
    rule: finding.rule,
    messageId: finding.messageId,
    ...(finding.container !== undefined ? { container: finding.container } : {}),
  };
  return {
    range: keyRange(finding.line, finding.column, lineText),
    severity: SEVERITY[finding.severity],
    code: finding.rule,
    codeDescription: { href: ruleDocsUrl(finding.rule) },
    source: SOURCE,
    message: finding.message,
    data,
  };
}

export function problemDiagnostic(message: string, line: number | undefined, column: number | undefined, lineText: (line: number) => string): Diagnostic {
  return { range: keyRange(line, column, lineText), severity: DiagnosticSeverity.Error, source: SOURCE, message };
}

/** From the 1-based position to the end of the key (or quoted key) that starts there; the whole first line without a position. */
export function keyRange(line: number | undefined, column: number | undefined, lineText: (line: number) => string): Range {
  const row = Math.max(0, (line ?? 1) - 1);
  const text = lineText(row).replace(/\r?\n$/, '');
  if (line === undefined || column === undefined) return { start: { line: row, character: 0 }, end: { line: row, character: text.length } };
  const start = Math.min(Math.max(0, column - 1), text.length);
  return { start: { line: row, character: start }, end: { line: row, character: start + tokenLength(text.slice(start)) } };
}

/** A quoted token to its closing quote; a plain one to the colon, blank or flow indicator that ends it. */
function tokenLength(rest: string): number {
  const quote = rest[0];
  if (quote === '"' || quote === "'") {
    const close = rest.indexOf(quote, 1);
    return close === -1 ? rest.length : close + 1;
  }
  const end = /[:\s,{}[\]]|$/.exec(rest)!.index;
  // A position on a blank or an indicator (a sequence item's dash): the rest of the line.
  return end > 0 ? end : rest.trimEnd().length;
}
