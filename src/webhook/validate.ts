import { isDeepStrictEqual } from 'node:util';
import type { Engine } from '../engine/engine.js';
import type { Finding } from '../engine/finding.js';
import { valueAt } from '../model/pointer.js';
import { lintAdmitted } from './admission-lint.js';
import type { AdmissionRequest, AdmissionResponse } from './admission-review.js';
import type { NamespacePolicy } from './namespace-policy.js';
import { admissionWarnings } from './warnings.js';

export type ValidationDecision = 'allowed' | 'warned' | 'denied' | 'skipped';

export interface ValidationOutcome {
  response: AdmissionResponse;
  decision: ValidationDecision;
  findings: Finding[];
  failedRules: string[];
}

/**
 * The validating review. Errors deny only in enforce mode, and on UPDATE only when the update
 * introduces them or touches the container that has them: an unchanged legacy object being
 * scaled or relabelled is never blocked. Everything else shown becomes a warning; infos are not shown.
 */
export function validateRequest(request: AdmissionRequest, engine: Engine, policy: NamespacePolicy): ValidationOutcome {
  const allow = (decision: ValidationDecision): ValidationOutcome => ({ response: { uid: request.uid, allowed: true }, decision, findings: [], failedRules: [] });
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allow('skipped');
  const mode = policy.modeFor(request.namespace);
  if (mode === 'off') return allow('skipped');
  const result = lintAdmitted(engine, request.object);
  if (result === undefined || result.containers === 0) return allow('skipped');

  const failedRules = [...new Set(result.failures.map((failure) => failure.rule))];
  const shown = result.findings.filter((finding) => finding.severity !== 'info');
  // Only enforce mode denies; the old object is linted only then (on UPDATE, to spare legacy objects).
  const errors = mode === 'enforce' ? shown.filter((finding) => finding.severity === 'error') : [];
  const denying = request.operation === 'UPDATE' && errors.length > 0 ? findingsTheUpdateOwns(errors, request, engine) : errors;
  const warnings = admissionWarnings(shown.filter((finding) => !denying.includes(finding)));
  const response: AdmissionResponse = { uid: request.uid, allowed: denying.length === 0 };
  if (warnings.length > 0) response.warnings = warnings;
  if (denying.length > 0) {
    response.status = { code: 400, reason: 'BadRequest', message: denialMessage(denying) };
  }
  return { response, decision: denying.length > 0 ? 'denied' : warnings.length > 0 ? 'warned' : 'allowed', findings: result.findings, failedRules };
}

/** On UPDATE: findings that are new, or sit in a container the update changed. */
function findingsTheUpdateOwns(findings: Finding[], request: AdmissionRequest, engine: Engine): Finding[] {
  const before = lintAdmitted(engine, request.oldObject);
  if (before === undefined) return findings;
  const existing = new Set(before.findings.map(findingKey));
  return findings.filter((finding) => {
    if (!existing.has(findingKey(finding))) return true;
    const container = containerPointer(finding.pointer);
    return container !== undefined && !isDeepStrictEqual(valueAt(request.object, container), valueAt(request.oldObject, container));
  });
}

function findingKey(finding: Finding): string {
  return `${finding.rule}\u0000${finding.pointer}\u0000${finding.container ?? ''}`;
}

function containerPointer(pointer: string): string | undefined {
  return /^(.*\/(?:containers|initContainers|ephemeralContainers)\/\d+)(?:\/|$)/.exec(pointer)?.[1];
}

function denialMessage(findings: Finding[]): string {
  const lines = findings.map((finding) => {
    const container = finding.container === undefined ? '' : `container "${finding.container}": `;
    return `- ${container}${finding.message} [${finding.rule}]`;
  });
  return `probe-lint found ${findings.length} ${findings.length === 1 ? 'problem' : 'problems'} that the cluster would reject or that can never work:\n${lines.join('\n')}`;
}
