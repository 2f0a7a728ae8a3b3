// Admission warnings (apiserver endpoints/filters/warning.go): a warning with a control character
// is silently dropped; past 4,096 runes in total, every warning is re-emitted cut to 256 runes and
// later ones stop. So each finding becomes one line written for it (the rule's short message),
// under 256 runes and never cut mid-word, errors first, inside the total budget.
import type { Finding } from '../engine/finding.js';
import { severityRank } from '../engine/finding.js';
import { shortLine } from '../report/finding-text.js';

export const WARNING_BUDGET_RUNES = 4096;
export const WARNING_MAX_RUNES = 256;
/** Room kept for the line that says how many findings did not fit. */
const MORE_LINE_RESERVE = 80;

/** One finding as one admission warning: its short message, at most 256 runes, cut only between words. */
export function warningLine(finding: Finding): string {
  const line = shortLine(finding);
  if (runes(line) <= WARNING_MAX_RUNES) return line;
  const suffix = ` … [${finding.rule}]`;
  const words = [...line].slice(0, WARNING_MAX_RUNES - runes(suffix)).join('');
  return words.slice(0, Math.max(words.lastIndexOf(' '), 1)).trimEnd() + suffix;
}

/** Warning lines for all findings, most severe first, after `lead` (lines of probe-lint's own), within the API server's total budget. */
export function admissionWarnings(findings: readonly Finding[], lead: readonly string[] = []): string[] {
  const ordered = [...findings].sort((a, b) => severityRank(b.severity) - severityRank(a.severity));
  const lines = [...new Set(ordered.map(warningLine))];
  const kept: string[] = [...lead];
  let used = lead.reduce((total, line) => total + runes(line), 0);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const reserve = index < lines.length - 1 ? MORE_LINE_RESERVE : 0;
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
export function runes(text: string): number {
  if (!SURROGATE.test(text)) return text.length;
  let count = 0;
  for (const _ of text) count++;
  return count;
}
