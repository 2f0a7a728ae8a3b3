// GitLab Code Quality JSON, for the merge request widget: one issue per finding and input error,
// with a fingerprint that stays the same while the finding does (rule, file, object, container and
// field — not the line, which moves as the file is edited).
import { createHash } from 'node:crypto';
import type { Severity } from '../engine/rule.js';
import { renderedNote, type ReportInput } from './located.js';
import { standaloneMessage } from './finding-text.js';

/** GitLab's severities: info, minor, major, critical, blocker. */
const SEVERITY: Record<Severity, string> = { error: 'critical', warning: 'major', info: 'info' };

export function formatGitlab(input: ReportInput): string {
  const issues = [
    ...input.inputErrors.map((error) => ({
      description: `input: ${error.message}`,
      check_name: 'probe-lint/input',
      fingerprint: fingerprint(['input', error.file, error.message]),
      severity: 'blocker',
      location: { path: error.file, lines: { begin: error.line ?? 1 } },
    })),
    ...input.findings.map((finding) => ({
      description: `${standaloneMessage(finding)}${renderedNote(finding)}`,
      check_name: `probe-lint/${finding.rule}`,
      fingerprint: fingerprint([
        finding.rule,
        finding.messageId,
        finding.file ?? '',
        finding.identity.kind,
        finding.identity.namespace ?? '',
        finding.identity.name ?? '',
        finding.container ?? '',
        finding.pointer,
      ]),
      severity: SEVERITY[finding.severity],
      location: { path: finding.file ?? finding.identity.kind, lines: { begin: finding.line ?? 1 } },
    })),
  ];
  return `${JSON.stringify(issues, null, 2)}\n`;
}

function fingerprint(parts: readonly string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex');
}
