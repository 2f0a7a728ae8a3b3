import type { FindingEvidence } from './runtime-evidence.js';
import type { Position } from '../model/position.js';
import type { Resource, ResourceIdentity } from '../model/resource.js';
import type { FixKind, PatchOperation, Severity } from './rule.js';

/** One problem, the same wherever it is delivered (CLI, webhook, audit, --fix). */
export interface Finding {
  rule: string;
  /** Which of the rule's messages: with `rule`, a stable key for what was found. */
  messageId: string;
  severity: Severity;
  /** The long message: what, the effective numbers, why it matters, what to do. */
  message: string;
  /** The short message (≤ 120 characters where possible): admission warnings and annotations. */
  short: string;
  /** JSON Pointer into the document (the object, or the List that holds it). */
  pointer: string;
  resource: Resource;
  identity: ResourceIdentity;
  /** Container name, when the finding is about one container. */
  container?: string;
  /** RFC 6902 operations on the document that resolve the finding. */
  fix?: PatchOperation[];
  fixKind?: FixKind;
  /** Set when the finding is about source text rather than a field. */
  position?: Position;
  /** A runtime finding's evidence: what the kubelet did (audit). */
  evidence?: FindingEvidence;
  /** A runtime finding's likely causes: the static findings on the same container (audit). */
  causes?: { rule: string; messageId: string }[];
}

export interface Suppression {
  by: 'annotation' | 'config';
  reason: string;
}

export interface SuppressedFinding extends Finding {
  suppression: Suppression;
}

const SEVERITY_RANK: Record<Severity, number> = { error: 3, warning: 2, info: 1 };

export function severityRank(severity: Severity): number {
  return SEVERITY_RANK[severity];
}

/** 1-based position of a finding in its source, where the source has positions. */
export function positionOf(finding: Finding): Position | undefined {
  return finding.position ?? finding.resource.origin.locate?.(finding.pointer);
}
