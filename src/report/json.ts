import type { LocatedFinding, ReportInput } from './located.js';

/** Chunks are handed on at about this size: one write per finding would be a system call each. */
const CHUNK_CHARACTERS = 64 * 1024;

/**
 * One JSON object: findings (1-based line and column), summary, input errors, and suppressed
 * findings when asked; the text `JSON.stringify(report, null, 2)` gives, written in chunks as
 * the findings go, so that neither the whole text nor a second copy of every finding is held.
 */
export function* jsonChunks(input: ReportInput): Generator<string> {
  let pending = '{\n  "findings": ';
  for (const piece of listPieces(input.findings, toJson)) {
    pending += piece;
    if (pending.length >= CHUNK_CHARACTERS) {
      yield pending;
      pending = '';
    }
  }
  pending += `,\n  "summary": ${member(input.summary)},\n  "inputErrors": ${member(input.inputErrors)}`;
  if (input.showSuppressed) {
    pending += ',\n  "suppressed": ';
    for (const piece of listPieces(input.suppressed, (finding) => ({ ...toJson(finding), suppression: finding.suppression }))) pending += piece;
  }
  yield pending + '\n}\n';
}

export function formatJson(input: ReportInput): string {
  return [...jsonChunks(input)].join('');
}

/** A list that is a member of the top-level object, one item at a time, as JSON.stringify indents it. */
function* listPieces<T>(items: readonly T[], toValue: (item: T) => unknown): Generator<string> {
  if (items.length === 0) {
    yield '[]';
    return;
  }
  yield '[\n';
  for (let index = 0; index < items.length; index++) {
    // A JSON text has no line break inside a string, so every one is a line of the layout.
    yield `    ${JSON.stringify(toValue(items[index]!), null, 2).replaceAll('\n', '\n    ')}${index < items.length - 1 ? ',' : ''}\n`;
  }
  yield '  ]';
}

/** A value that is a member of the top-level object, indented as JSON.stringify would. */
function member(value: unknown): string {
  return JSON.stringify(value, null, 2).replaceAll('\n', '\n  ');
}

function toJson(finding: LocatedFinding): Record<string, unknown> {
  const json: Record<string, unknown> = {
    rule: finding.rule,
    messageId: finding.messageId,
    severity: finding.severity,
    message: finding.message,
    file: finding.file ?? null,
    line: finding.line ?? null,
    column: finding.column ?? null,
    resource: {
      apiVersion: finding.identity.apiVersion,
      kind: finding.identity.kind,
      name: finding.identity.name ?? null,
      namespace: finding.identity.namespace ?? null,
    },
    container: finding.container ?? null,
    pointer: finding.pointer,
  };
  if (finding.rendered !== undefined) json.rendered = finding.rendered;
  if (finding.fix !== undefined) json.fix = finding.fix;
  if (finding.evidence !== undefined) json.evidence = finding.evidence;
  if (finding.causes !== undefined) json.causes = finding.causes;
  return json;
}
