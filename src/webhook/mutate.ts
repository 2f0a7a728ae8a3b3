import fastJsonPatch from 'fast-json-patch';
import type { WebhookConfig } from '../engine/config.js';
import type { Engine } from '../engine/engine.js';
import type { PatchOperation } from '../engine/rule.js';
import { escapeSegment } from '../model/pointer.js';
import { isKubeObject } from '../model/resource.js';
import { lintAdmitted } from './admission-lint.js';
import type { AdmissionRequest, AdmissionResponse } from './admission-review.js';
import type { NamespacePolicy } from './namespace-policy.js';

export const INJECTED_ANNOTATION = 'probe-lint.dev/injected';
const STARTUP_PROBE_RULE = 'liveness-without-startup-probe';
const DEFAULT_FIX_AT_ADMISSION = [STARTUP_PROBE_RULE];
/** A fix may only touch a container's probes: anything else is not ours to change at admission. */
const PROBE_PATH = /\/(?:containers|initContainers)\/\d+\/(?:livenessProbe|readinessProbe|startupProbe)(?:\/|$)/;

export type MutationDecision = 'patched' | 'unchanged' | 'skipped';

export interface MutationOutcome {
  response: AdmissionResponse;
  decision: MutationDecision;
  /** Rule and container of every fix in the patch. */
  applied: string[];
  operations: PatchOperation[];
}

/**
 * The mutating review: the engine's fixes for the rules configured to fix at admission, as one
 * JSON Patch. Pods only on CREATE (their probes are immutable afterwards); workload templates only
 * when configured, since a patched template is drift to GitOps tools. After the patch the rules no
 * longer find what they fixed, so a reinvocation (reinvocationPolicy: IfNeeded) patches nothing.
 */
export function mutateRequest(request: AdmissionRequest, engine: Engine, policy: NamespacePolicy, config: WebhookConfig): MutationOutcome {
  const unchanged = (decision: MutationDecision): MutationOutcome => ({ response: { uid: request.uid, allowed: true }, decision, applied: [], operations: [] });
  const object = request.object;
  if (!isKubeObject(object) || policy.modeFor(request.namespace) === 'off') return unchanged('skipped');
  const isPod = object.kind === 'Pod';
  if (isPod ? request.operation !== 'CREATE' : !(config.mutateTemplates && (request.operation === 'CREATE' || request.operation === 'UPDATE'))) {
    return unchanged('skipped');
  }

  const rules = new Set(config.fixAtAdmission ?? DEFAULT_FIX_AT_ADMISSION);
  if (!policy.injectsStartupProbe(request.namespace, object.metadata?.annotations ?? undefined)) rules.delete(STARTUP_PROBE_RULE);
  if (rules.size === 0) return unchanged('skipped');
  const result = lintAdmitted(engine, object);
  if (result === undefined) return unchanged('skipped');

  let patched: unknown = structuredClone(object);
  const operations: PatchOperation[] = [];
  const applied: string[] = [];
  for (const finding of result.findings) {
    if (!rules.has(finding.rule) || !finding.fix?.length || !finding.fix.every((operation) => PROBE_PATH.test(operation.path))) continue;
    try {
      patched = fastJsonPatch.applyPatch(patched, structuredClone(finding.fix), true, false).newDocument;
    } catch {
      continue; // conflicts with a fix already in the patch
    }
    operations.push(...finding.fix);
    applied.push(`${finding.rule}:${finding.container ?? ''}`);
  }
  if (operations.length === 0) return unchanged('unchanged');
  operations.push(...annotationOperations(object.metadata?.annotations ?? undefined, applied));
  return {
    response: { uid: request.uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(operations)).toString('base64') },
    decision: 'patched',
    applied,
    operations,
  };
}

/** Records what was injected in `probe-lint.dev/injected`, merged with any earlier record. */
function annotationOperations(annotations: Record<string, string> | undefined, applied: string[]): PatchOperation[] {
  if (annotations === undefined || annotations === null) return [{ op: 'add', path: '/metadata/annotations', value: { [INJECTED_ANNOTATION]: applied.join(',') } }];
  const earlier = annotations[INJECTED_ANNOTATION]?.split(',').filter(Boolean) ?? [];
  const value = [...new Set([...earlier, ...applied])].join(',');
  return [{ op: 'add', path: `/metadata/annotations/${escapeSegment(INJECTED_ANNOTATION)}`, value }];
}
