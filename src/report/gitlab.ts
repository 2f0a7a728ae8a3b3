// GitLab Code Quality JSON, for the merge request widget: one issue per finding and input error,
// each with a fingerprint of its own (fingerprint.ts).
import type { Severity } from '../engine/rule.js';
import { renderedNote, type ReportInput } from './located.js';
import { standaloneMessage } from './finding-text.js';
import { Fingerprints } from './fingerprint.js';

/** GitLab's severities: info, minor, major, critical, blocker. */
const SEVERITY: Record<Severity, string> = { error: 'critical', warning: 'major', info: 'info' };

export function formatGitlab(input: ReportInput): string {
  const fingerprints = new Fingerprints();
  const issues = [
    ...input.inputErrors.map((error) => ({
      description: `input: ${error.message}`,
      check_name: 'probe-lint/input',
      fingerprint: fingerprints.unique(['input', error.file, error.message]),
      severity: error.severity === 'warning' ? 'major' : 'blocker',
      location: { path: error.file, lines: { begin: error.line ?? 1 } },
    })),
    ...input.findings.map((finding) => ({
      description: `${standaloneMessage(finding)}${renderedNote(finding)}`,
      check_name: `probe-lint/${finding.rule}`,
      fingerprint: fingerprints.of(finding),
      severity: SEVERITY[finding.severity],
      location: { path: finding.file ?? finding.identity.kind, lines: { begin: finding.line ?? 1 } },
    })),
  ];
  return `${JSON.stringify(issues, null, 2)}\n`;
}
