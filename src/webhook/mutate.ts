import fastJsonPatch from 'fast-json-patch';
import { INJECTED_ANNOTATION } from '../engine/admission-names.js';
import type { WebhookConfig } from '../engine/config.js';
import type { LintSession } from '../lint/index.js';
import type { AnyRule, PatchOperation } from '../engine/rule.js';
import { cloneJson } from '../model/json-value.js';
import { escapeSegment } from '../model/pointer.js';
import { isKubeObject } from '../model/resource.js';
import type { AdmissionLimits } from '../lint/index.js';
import type { AdmissionRequest, AdmissionResponse } from './admission-review.js';
import type { NamespacePolicy } from './namespace-policy.js';

/** A fix may only touch a container's probes: anything else is not ours to change at admission. */
const PROBE_PATH = /\/(?:containers|initContainers)\/\d+\/(?:livenessProbe|readinessProbe|startupProbe)(?:\/|$)/;

export type MutationDecision = 'patched' | 'unchanged' | 'skipped';

export interface MutationOutcome {
  response: AdmissionResponse;
  decision: MutationDecision;
  /** Rule and container of every fix in the patch. */
  applied: string[];
  operations: PatchOperation[];
  /** Fixes left out because they touch what an earlier fix in the same patch touches. */
  conflicts: { rule: string; container: string | undefined; path: string }[];
}

/** The rules that may fix at admission: those with an admission opt-in, narrowed by `webhook.fixAtAdmission`. */
export function admissionFixRules(rules: readonly AnyRule[], config: WebhookConfig): AnyRule[] {
  const listed = config.fixAtAdmission;
  return rules.filter((rule) => rule.meta.admission !== undefined && rule.meta.fix !== undefined && (listed === undefined || listed.includes(rule.meta.id)));
}

/**
 * The mutating review: the fixes of the rules opted in for this object, as one JSON Patch. Pods
 * only on CREATE (their probes are immutable afterwards); workload templates only when configured,
 * since a patched template is drift to GitOps tools. After the patch the rules no longer find what
 * they fixed, so a reinvocation (reinvocationPolicy: IfNeeded) patches nothing. Linear in the size
 * of the object: fixes are checked for overlap by path, and the patch is applied once to verify it.
 */
export function mutateRequest(
  request: AdmissionRequest,
  session: LintSession,
  policy: NamespacePolicy,
  config: WebhookConfig,
  fixRules: readonly AnyRule[],
  limits: AdmissionLimits,
): MutationOutcome {
  const unchanged = (decision: MutationDecision): MutationOutcome => ({
    response: { uid: request.uid, allowed: true },
    decision,
    applied: [],
    operations: [],
    conflicts: [],
  });
  const object = request.object;
  if (!isKubeObject(object) || policy.modeFor(request.namespace) === 'off') return unchanged('skipped');
  const isPod = object.kind === 'Pod';
  if (isPod ? request.operation !== 'CREATE' : !(config.mutateTemplates && (request.operation === 'CREATE' || request.operation === 'UPDATE'))) {
    return unchanged('skipped');
  }
  const annotations = objectAnnotations(object.metadata);
  const rules = new Set(fixRules.filter((rule) => policy.optedIn(rule.meta.admission!.optIn, request.namespace, annotations)).map((rule) => rule.meta.id));
  if (rules.size === 0) return unchanged('skipped');
  const linted = session.lintAdmitted(object, limits);
  if (linted.kind !== 'linted') return unchanged('skipped');

  const operations: PatchOperation[] = [];
  const applied: string[] = [];
  const conflicts: MutationOutcome['conflicts'] = [];
  const touched: string[] = [];
  for (const finding of linted.result.findings) {
    if (!rules.has(finding.rule) || !finding.fix?.length || !finding.fix.every((operation) => PROBE_PATH.test(operation.path))) continue;
    const clash = finding.fix.find((operation) => touched.some((path) => overlapping(path, operation.path)));
    if (clash !== undefined) {
      conflicts.push({ rule: finding.rule, container: finding.container, path: clash.path });
      continue;
    }
    touched.push(...finding.fix.map((operation) => operation.path));
    operations.push(...finding.fix);
    applied.push(`${finding.rule}:${finding.container ?? ''}`);
  }
  if (operations.length === 0) return { ...unchanged('unchanged'), conflicts };
  operations.push(...annotationOperations(annotations, applied));
  // One application to a copy proves the API server can apply it (a patch that fails there is a 500 for the user).
  fastJsonPatch.applyPatch(cloneJson(object), cloneJson(operations), true, true);
  return {
    response: { uid: request.uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(operations)).toString('base64') },
    decision: 'patched',
    applied,
    operations,
    conflicts,
  };
}

/** Two paths touch the same place when one is the other or lies under it. */
function overlapping(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

function objectAnnotations(metadata: unknown): Record<string, unknown> | undefined {
  const annotations = (metadata as { annotations?: unknown } | undefined)?.annotations;
  return annotations !== null && typeof annotations === 'object' && !Array.isArray(annotations) ? (annotations as Record<string, unknown>) : undefined;
}

/** Records what was injected in `probe-lint.dev/injected`, merged with any earlier record. */
function annotationOperations(annotations: Record<string, unknown> | undefined, applied: string[]): PatchOperation[] {
  if (annotations === undefined) return [{ op: 'add', path: '/metadata/annotations', value: { [INJECTED_ANNOTATION]: applied.join(',') } }];
  const earlierValue = annotations[INJECTED_ANNOTATION];
  const earlier = typeof earlierValue === 'string' ? earlierValue.split(',').filter(Boolean) : [];
  const value = [...new Set([...earlier, ...applied])].join(',');
  return [{ op: 'add', path: `/metadata/annotations/${escapeSegment(INJECTED_ANNOTATION)}`, value }];
}
