import type { LocatedFinding, ReportInput } from './located.js';

/** One JSON object: findings (1-based line and column), summary, input errors, and suppressed findings when asked. */
export function formatJson(input: ReportInput): string {
  const output: Record<string, unknown> = {
    findings: input.findings.map(toJson),
    summary: input.summary,
    inputErrors: input.inputErrors,
  };
  if (input.showSuppressed) {
    output.suppressed = input.suppressed.map((finding) => ({ ...toJson(finding), suppression: finding.suppression }));
  }
  return JSON.stringify(output, null, 2) + '\n';
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
