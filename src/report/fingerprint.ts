// Fingerprints that CI systems key findings by (GitLab Code Quality, SARIF's partialFingerprints,
// JSON): the finding's key (finding-key.ts: rule, object, container, field, the probe's values — not
// the file or the line, which move as files are edited), the same key a baseline records, and never
// shared by two findings of one report, or GitLab keeps one.
import { findingKeyParts, keyOfText } from './finding-key.js';
import type { LocatedFinding } from './located.js';

/** Gives each finding of a report its fingerprint, in report order; one instance per report. */
export class Fingerprints {
  private readonly seen = new Map<string, number>();

  of(finding: LocatedFinding): string {
    return this.unique(findingKeyParts(finding));
  }

  /** For what is not a finding (an input error), from its own parts. */
  unique(parts: readonly string[]): string {
    // JSON keeps the parts apart whatever they hold (a name with a separator cannot pose as two parts).
    const base = JSON.stringify(parts);
    // Repeats are counted by the first fingerprint, which the report holds anyway, not by the parts'
    // longer text (5 MB more at the peak of a report of 27,000 findings).
    const first = keyOfText(base);
    const repeats = this.seen.get(first) ?? 0;
    this.seen.set(first, repeats + 1);
    // The second and later findings with the same parts (the same object twice in one file, a template
    // rendered into two places) count their place among them.
    return repeats === 0 ? first : keyOfText(`${base}#${repeats}`);
  }
}
