// One object under admission (the webhook's reviews): linted within bounds a tenant cannot stretch.
import { DEFAULT_WORK_LIMIT, type Engine, type LintResult } from '../engine/engine.js';
import { isKubeObject, standaloneResource } from '../model/resource.js';

export interface AdmissionLimits {
  /** Objects with more containers are not linted (a tenant could otherwise make every review slow). */
  maxContainers: number;
  /** Objects nested deeper are not linted (no Kubernetes object is; deep ones only cost stack). */
  maxDepth: number;
  /** Work units one review's lint may take (the engine's DEFAULT_WORK_LIMIT): past them it stops with what it found. */
  maxWork: number;
}

export const DEFAULT_LIMITS: AdmissionLimits = { maxContainers: 500, maxDepth: 100, maxWork: DEFAULT_WORK_LIMIT };

export type AdmittedLint = { kind: 'linted'; result: LintResult } | { kind: 'not-applicable' } | { kind: 'unreadable'; reason: string };

/** Lints one admitted object, within the limits; an object the engine cannot read is said so, never thrown. */
export function lintAdmitted(engine: Engine, object: unknown, limits: AdmissionLimits): AdmittedLint {
  if (!isKubeObject(object)) return { kind: 'not-applicable' };
  // One walk for both bounds, before any pod site is built: the depth, and an upper bound on the
  // containers (every item of a containers/initContainers/ephemeralContainers list, wherever it is).
  const shape = measure(object, limits.maxDepth);
  if (shape === 'too-deep') return { kind: 'unreadable', reason: `it is nested deeper than ${limits.maxDepth} levels` };
  if (shape.containers > limits.maxContainers) {
    return {
      kind: 'unreadable',
      reason: `it has ${shape.containers} containers, more than the ${limits.maxContainers} probe-lint checks per object (webhook.maxContainersPerReview)`,
    };
  }
  try {
    const documents = [{ resources: [standaloneResource(object)] }];
    return { kind: 'linted', result: engine.lint(documents, undefined, limits.maxWork) };
  } catch (error) {
    return { kind: 'unreadable', reason: `probe-lint failed on it (${error instanceof Error ? error.name : 'error'})` };
  }
}

const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

/** Depth (recursion stops at the limit, so the stack stays shallow) and containers, in one walk. */
function measure(value: unknown, limit: number): 'too-deep' | { containers: number } {
  const shape = { containers: 0 };
  return walk(value, limit, shape) ? shape : 'too-deep';
}

// A function of its own rather than a closure: this walk visits every value of every review.
function walk(node: unknown, remaining: number, shape: { containers: number }): boolean {
  if (node === null || typeof node !== 'object') return true;
  if (remaining <= 0) return false;
  if (Array.isArray(node)) {
    for (const item of node) if (!walk(item, remaining - 1, shape)) return false;
    return true;
  }
  for (const key in node) {
    const child = (node as Record<string, unknown>)[key];
    // Scalars, most of an object's values, need no call.
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a shortcut; the call returns true at once for a scalar.
    if (child === null || typeof child !== 'object') continue;
    if (CONTAINER_LISTS.has(key) && Array.isArray(child)) shape.containers += child.length;
    if (!walk(child, remaining - 1, shape)) return false;
  }
  return true;
}
