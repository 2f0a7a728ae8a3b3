import { streamedJson, streamedList } from './json-stream.js';
import { Fingerprints } from './fingerprint.js';
import type { LocatedFinding, ReportInput } from './located.js';

/**
 * One JSON object: findings (1-based line and column), summary, input errors, and suppressed
 * findings when asked; written in chunks as the findings go.
 */
export function jsonChunks(input: ReportInput): Generator<string> {
  const fingerprints = new Fingerprints();
  const findings = streamedList(input.findings, (finding) => ({ ...toJson(finding), fingerprint: fingerprints.of(finding) }));
  const output: Record<string, unknown> = { findings: findings.placeholder, summary: input.summary, inputErrors: input.inputErrors };
  if (input.outsideInputs) output.outsideInputs = input.outsideInputs;
  if (input.changedSince !== undefined) output.changedSince = input.changedSince;
  if (input.notices !== undefined && input.notices.length > 0) output.notices = input.notices;
  const lists = [findings];
  if (input.showSuppressed) {
    const suppressed = streamedList(input.suppressed, (finding) => ({ ...toJson(finding), suppression: finding.suppression }));
    output.suppressed = suppressed.placeholder;
    lists.push(suppressed);
  }
  if (input.baseline !== undefined) {
    // The baseline's findings apart, fingerprinted in the same sequence: a fingerprint never repeats in one report.
    const baselined = streamedList(input.baseline.baselined, (finding) => ({ ...toJson(finding), fingerprint: fingerprints.of(finding) }));
    output.baseline = { file: input.baseline.file, baselined: baselined.placeholder, fixed: input.baseline.fixed };
    lists.push(baselined);
  }
  return streamedJson(output, lists);
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
  if (finding.alsoIn !== undefined) json.alsoIn = finding.alsoIn;
  if (finding.fix !== undefined) json.fix = finding.fix;
  if (finding.evidence !== undefined) json.evidence = finding.evidence;
  if (finding.causes !== undefined) json.causes = finding.causes;
  return json;
}
