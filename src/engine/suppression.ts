import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { ResourceIdentity } from '../model/resource.js';
import type { IgnoreEntry } from './config.js';
import type { Suppression } from './finding.js';
import { matchesGlob } from './glob.js';

export const IGNORE_ANNOTATION = 'probe-lint.dev/ignore';

export interface SuppressionSubject {
  rule: string;
  identity: ResourceIdentity;
  container: string | undefined;
  /** Metadata whose annotations may suppress: the object's, then the pod template's. */
  metadata: (ObjectMeta | undefined)[];
}

export type SuppressionVerdict =
  | { kind: 'kept' }
  | { kind: 'suppressed'; suppression: Suppression }
  | { kind: 'expired'; note: string };

/**
 * `probe-lint.dev/ignore: "rule-a,rule-b # reason"` (or "*") on the object or its pod template;
 * `probe-lint.dev/ignore.<container>: "rule-a"` for one container.
 */
export function annotationSuppression(subject: SuppressionSubject): Suppression | undefined {
  const keys = [IGNORE_ANNOTATION];
  if (subject.container !== undefined) keys.push(`${IGNORE_ANNOTATION}.${subject.container}`);
  for (const metadata of subject.metadata) {
    const annotations = metadata?.annotations;
    if (annotations === undefined || annotations === null) continue;
    for (const key of keys) {
      const value = annotations[key];
      if (typeof value !== 'string') continue;
      const [list = '', ...reason] = value.split('#');
      const rules = list.split(',').map((rule) => rule.trim());
      if (rules.includes('*') || rules.includes(subject.rule)) {
        const why = reason.join('#').trim();
        return { by: 'annotation', reason: `${key}${why ? `: ${why}` : ''}` };
      }
    }
  }
  return undefined;
}

export function configSuppression(entries: readonly IgnoreEntry[], subject: SuppressionSubject, today: string): SuppressionVerdict {
  let expired: string | undefined;
  for (const entry of entries) {
    const rules = entry.rules ?? ['*'];
    if (!rules.includes('*') && !rules.includes(subject.rule)) continue;
    if (
      !matchesGlob(entry.kind, subject.identity.kind) ||
      !matchesGlob(entry.namespace, subject.identity.namespace) ||
      !matchesGlob(entry.name, subject.identity.name) ||
      !matchesGlob(entry.container, subject.container)
    ) {
      continue;
    }
    if (entry.expires !== undefined && entry.expires < today) {
      expired ??= `the exemption "${entry.reason}" expired on ${entry.expires}`;
      continue;
    }
    return { kind: 'suppressed', suppression: { by: 'config', reason: entry.reason } };
  }
  return expired === undefined ? { kind: 'kept' } : { kind: 'expired', note: expired };
}
