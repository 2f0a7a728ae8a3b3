import { isDeepStrictEqual } from 'node:util';
import type { LintSession } from '../lint/index.js';
import type { Finding } from '../engine/finding.js';
import { valueAt } from '../model/pointer.js';
import { longLine, singleLine } from '../report/finding-text.js';
import type { AdmissionLimits } from '../lint/index.js';
import type { AdmissionRequest, AdmissionResponse } from './admission-review.js';
import type { NamespacePolicy } from './namespace-policy.js';
import { admissionWarnings } from './warnings.js';

export type ValidationDecision = 'allowed' | 'warned' | 'denied' | 'skipped' | 'unreadable';

export interface ValidationOutcome {
  response: AdmissionResponse;
  decision: ValidationDecision;
  findings: Finding[];
  failedRules: string[];
  /** Findings an annotation on the object suppressed (counted in metrics). */
  suppressedByAnnotation: Finding[];
  /** Why the object could not be checked, when it could not. */
  unreadable?: string;
  /** The lint stopped at its work budget: the findings are those found before it. */
  stopped?: boolean;
}

/** The admission warning of a review whose lint stopped at its work budget (one line, under 256 runes). */
export const STOPPED_WARNING =
  'probe-lint stopped checking this object at its work budget: the warnings shown are those found before it; lint the manifest with probe-lint for the rest';

export interface ValidationSettings {
  limits: AdmissionLimits;
  /** In enforce mode, may the object's own probe-lint.dev/ignore annotations lift a denial? */
  annotationsInEnforce: boolean;
}

/** At most this many findings are listed in a denial; the rest are counted. */
const DENIAL_LINES = 20;

/**
 * The validating review. Errors deny only in enforce mode, and on UPDATE only when the update
 * introduces them or touches the container that has them: an unchanged legacy object being
 * scaled or relabelled is never blocked. In enforce mode the object's own ignore annotations do
 * not lift a denial (its author is the one being checked) unless the config says they may.
 * Everything else shown becomes a warning; infos are not shown.
 */
export function validateRequest(request: AdmissionRequest, session: LintSession, policy: NamespacePolicy, settings: ValidationSettings): ValidationOutcome {
  const allow = (decision: ValidationDecision): ValidationOutcome => ({
    response: { uid: request.uid, allowed: true },
    decision,
    findings: [],
    failedRules: [],
    suppressedByAnnotation: [],
  });
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allow('skipped');
  const mode = policy.modeFor(request.namespace);
  if (mode === 'off') return allow('skipped');
  const linted = session.lintAdmitted(request.object, settings.limits);
  if (linted.kind === 'not-applicable') return allow('skipped');
  if (linted.kind === 'unreadable') return unreadable(request, mode === 'enforce', linted.reason);
  const result = linted.result;
  if (result.containers === 0) return allow('skipped');

  const failedRules = [...new Set(result.failures.map((failure) => failure.rule))];
  const byAnnotation = result.suppressed.filter((finding) => finding.suppression.by === 'annotation');
  const enforce = mode === 'enforce';
  // Errors an annotation hid still deny in enforce mode, unless the platform lets annotations decide.
  const hiddenErrors = enforce && !settings.annotationsInEnforce ? byAnnotation.filter((finding) => finding.severity === 'error') : [];
  const shown = result.findings.filter((finding) => finding.severity !== 'info');
  const errors = enforce ? [...shown.filter((finding) => finding.severity === 'error'), ...hiddenErrors] : [];
  // Only enforce mode denies; the old object is linted only then (on UPDATE, to spare legacy objects).
  const denying = request.operation === 'UPDATE' && errors.length > 0 ? findingsTheUpdateOwns(errors, request, session, settings.limits) : errors;
  const stopped = result.stopped.length > 0;
  const warnings = admissionWarnings(
    shown.filter((finding) => !denying.includes(finding)),
    stopped ? [STOPPED_WARNING] : [],
  );
  const response: AdmissionResponse = { uid: request.uid, allowed: denying.length === 0 };
  if (warnings.length > 0) response.warnings = warnings;
  if (denying.length > 0) response.status = { code: 400, reason: 'BadRequest', message: denialMessage(denying) };
  return {
    response,
    decision: denying.length > 0 ? 'denied' : warnings.length > 0 ? 'warned' : 'allowed',
    findings: result.findings,
    failedRules,
    suppressedByAnnotation: byAnnotation.filter((finding) => !hiddenErrors.includes(finding)),
    ...(stopped ? { stopped } : {}),
  };
}

/** An object probe-lint cannot check: allowed with a warning, or denied in enforce mode, and always said why. */
function unreadable(request: AdmissionRequest, enforce: boolean, reason: string): ValidationOutcome {
  const message = `probe-lint could not check this object: ${reason}`;
  const response: AdmissionResponse = enforce
    ? { uid: request.uid, allowed: false, status: { code: 400, reason: 'BadRequest', message: `${message}; in enforce mode such objects are refused` } }
    : { uid: request.uid, allowed: true, warnings: [singleLine(message)] };
  return { response, decision: 'unreadable', findings: [], failedRules: [], suppressedByAnnotation: [], unreadable: reason };
}

/** On UPDATE: findings that are new, or sit in a container the update changed. */
function findingsTheUpdateOwns(findings: Finding[], request: AdmissionRequest, session: LintSession, limits: AdmissionLimits): Finding[] {
  const before = session.asStrict().lintAdmitted(request.oldObject, limits);
  if (before.kind !== 'linted') return findings;
  const existing = new Set([...before.result.findings, ...before.result.suppressed].map(findingKey));
  return findings.filter((finding) => {
    if (!existing.has(findingKey(finding))) return true;
    const container = containerPointer(finding.pointer);
    return container !== undefined && !isDeepStrictEqual(valueAt(request.object, container), valueAt(request.oldObject, container));
  });
}

function findingKey(finding: Finding): string {
  return `${finding.rule}\u0000${finding.messageId}\u0000${finding.pointer}\u0000${finding.container ?? ''}`;
}

function containerPointer(pointer: string): string | undefined {
  return /^(.*\/(?:containers|initContainers|ephemeralContainers)\/\d+)(?:\/|$)/.exec(pointer)?.[1];
}

function denialMessage(findings: Finding[]): string {
  const lines = findings.slice(0, DENIAL_LINES).map((finding) => `- ${longLine(finding)}`);
  if (findings.length > DENIAL_LINES) lines.push(`- … and ${findings.length - DENIAL_LINES} more; run probe-lint on the manifest to see them all`);
  return `probe-lint found ${findings.length} ${findings.length === 1 ? 'problem' : 'problems'} that the cluster would reject or that can never work:\n${lines.join('\n')}`;
}
