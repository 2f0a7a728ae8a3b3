// Admission warnings (reference §5): a warning with a control character is silently dropped by the
// API server, and past 4,096 runes in total they are cut to 256 runes each, then dropped. So each
// finding becomes one short line, and the list stays inside the budget.
import type { Finding } from '../engine/finding.js';

export const WARNING_BUDGET_RUNES = 4096;
export const WARNING_TARGET_RUNES = 120;

/** One line of at most `WARNING_TARGET_RUNES` runes, no control characters. */
export function warningLine(finding: Finding): string {
  const container = finding.container === undefined ? '' : `container "${finding.container}": `;
  // The first clause of a message says what is wrong with the numbers; the rest is in `probe-lint explain`.
  const clause = finding.message.split(/: (?=[a-z])/)[0]!.replace(/\.$/, '');
  const line = `${container}${clause} [${finding.rule}]`.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
  return truncateRunes(line, WARNING_TARGET_RUNES, ` [${finding.rule}]`);
}

/** Warning lines for all findings, within the API server's total budget. */
export function admissionWarnings(findings: readonly Finding[]): string[] {
  const lines = [...new Set(findings.map(warningLine))];
  const kept: string[] = [];
  let used = 0;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const remaining = lines.length - index - 1;
    const reserve = remaining > 0 ? 64 : 0; // room for the "… more" line
    if (used + runes(line) + reserve > WARNING_BUDGET_RUNES) {
      kept.push(`… and ${lines.length - index} more probe-lint findings; run probe-lint on the manifest to see them all`);
      break;
    }
    kept.push(line);
    used += runes(line);
  }
  return kept;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Unicode code points: what the API server counts. UTF-16 length is the same without surrogate pairs. */
function runes(text: string): number {
  if (!SURROGATE.test(text)) return text.length;
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Cuts to `limit` runes, keeping `suffix` at the end when the text is longer. */
function truncateRunes(text: string, limit: number, suffix: string): string {
  if (runes(text) <= limit) return text;
  const suffixLength = runes(suffix);
  // Without surrogate pairs a code unit is a rune, and slicing is exact (and cheap on the hot path).
  const body = SURROGATE.test(text) ? [...text].slice(0, limit - suffixLength - 1).join('') : text.slice(0, limit - suffixLength - 1);
  return body.trimEnd() + '…' + suffix;
}
