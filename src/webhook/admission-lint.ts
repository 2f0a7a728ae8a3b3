import type { Engine, LintResult } from '../engine/engine.js';
import { findPodSites } from '../model/pod-site.js';
import { isKubeObject, standaloneResource } from '../model/resource.js';

export interface AdmissionLimits {
  /** Objects with more containers are not linted (a tenant could otherwise make every review slow). */
  maxContainers: number;
  /** Objects nested deeper are not linted (no Kubernetes object is; deep ones only cost stack). */
  maxDepth: number;
}

export const DEFAULT_LIMITS: AdmissionLimits = { maxContainers: 500, maxDepth: 100 };

export type AdmittedLint = { kind: 'linted'; result: LintResult } | { kind: 'not-applicable' } | { kind: 'unreadable'; reason: string };

/** Lints one admitted object, within the limits; an object the engine cannot read is said so, never thrown. */
export function lintAdmitted(engine: Engine, object: unknown, limits: AdmissionLimits, options: { strict?: boolean } = {}): AdmittedLint {
  if (!isKubeObject(object)) return { kind: 'not-applicable' };
  if (deeperThan(object, limits.maxDepth)) return { kind: 'unreadable', reason: `it is nested deeper than ${limits.maxDepth} levels` };
  try {
    const resource = standaloneResource(object);
    let containers = 0;
    for (const site of findPodSites(resource)) containers += site.containers.length;
    if (containers > limits.maxContainers) {
      return {
        kind: 'unreadable',
        reason: `it has ${containers} containers, more than the ${limits.maxContainers} probe-lint checks per object (webhook.maxContainersPerReview)`,
      };
    }
    return { kind: 'linted', result: engine.lint([{ resources: [resource] }], undefined, options) };
  } catch (error) {
    return { kind: 'unreadable', reason: `probe-lint failed on it (${error instanceof Error ? error.name : 'error'})` };
  }
}

/** Whether any value is nested deeper than `limit`, found without recursion. */
export function deeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
