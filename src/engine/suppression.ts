import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { ResourceIdentity } from '../model/resource.js';
import type { IgnoreEntry, ProbeLintConfig } from './config.js';
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

export type SuppressionVerdict = { kind: 'kept' } | { kind: 'suppressed'; suppression: Suppression } | { kind: 'expired'; note: string };

/** One `probe-lint.dev/ignore[.container]` annotation, read: the rule ids it names and its reason. */
export interface IgnoreAnnotation {
  key: string;
  rules: string[];
  reason: string;
}

/** `"rule-a, rule-b # reason"` or `"* # reason"`. */
export function parseIgnoreAnnotation(key: string, value: string): IgnoreAnnotation {
  const hash = value.indexOf('#');
  const list = hash === -1 ? value : value.slice(0, hash);
  return {
    key,
    rules: list
      .split(',')
      .map((rule) => rule.trim())
      .filter((rule) => rule !== ''),
    reason: hash === -1 ? '' : value.slice(hash + 1).trim(),
  };
}

/**
 * Who may exempt a finding. The config's `ignore` entries always may (the platform owns the config).
 * The object's own annotations may unless strict (`--strict`, `suppression.annotations: false`), and
 * when `suppression.annotationRules` lists rules, only for those.
 */
export class SuppressionPolicy {
  private readonly entries: readonly IgnoreEntry[];
  private readonly annotationRules: ReadonlySet<string> | undefined;
  private readonly annotationsAllowed: boolean;

  constructor(
    config: ProbeLintConfig,
    private readonly options: { strict: boolean; today: () => string },
  ) {
    this.entries = config.ignore ?? [];
    this.annotationsAllowed = !options.strict && config.suppression?.annotations !== false;
    const listed = config.suppression?.annotationRules;
    this.annotationRules = listed === undefined ? undefined : new Set(listed);
  }

  judge(subject: SuppressionSubject): SuppressionVerdict {
    if (this.annotationsAllowed && (this.annotationRules === undefined || this.annotationRules.has(subject.rule))) {
      const byAnnotation = annotationSuppression(subject);
      if (byAnnotation !== undefined) return { kind: 'suppressed', suppression: byAnnotation };
    }
    // Stryker disable next-line ConditionalExpression: a shortcut; no entry keeps every finding.
    return this.entries.length === 0 ? KEPT : configSuppression(this.entries, subject, this.options.today());
  }
}

/** Whether any annotation of `metadata` is an ignore annotation (most objects have none: the keys are not built for them). */
export function hasIgnoreAnnotation(metadata: ObjectMeta | undefined): boolean {
  const annotations = metadata?.annotations;
  // Stryker disable next-line ConditionalExpression: annotations that are text hold no key either.
  if (annotations === null || typeof annotations !== 'object') return false;
  for (const key in annotations) if (key.startsWith(IGNORE_ANNOTATION)) return true;
  return false;
}

/** The ignore annotations that apply to a container (or to the object, without a container). */
export function ignoreAnnotations(metadata: readonly (ObjectMeta | undefined)[], container: string | undefined): IgnoreAnnotation[] {
  const found: IgnoreAnnotation[] = [];
  for (const item of metadata) {
    // This runs for every finding: the keys are built only for metadata that has one.
    if (!hasIgnoreAnnotation(item)) continue;
    const annotations = item!.annotations!;
    // Stryker disable next-line ConditionalExpression: the key "….undefined" names no container anyone writes.
    const keys = container === undefined ? [IGNORE_ANNOTATION] : [IGNORE_ANNOTATION, `${IGNORE_ANNOTATION}.${container}`];
    for (const key of keys) {
      const value = annotations[key];
      if (typeof value === 'string') found.push(parseIgnoreAnnotation(key, value));
    }
  }
  return found;
}

function annotationSuppression(subject: SuppressionSubject): Suppression | undefined {
  for (const annotation of ignoreAnnotations(subject.metadata, subject.container)) {
    if (annotation.rules.includes('*') || annotation.rules.includes(subject.rule)) {
      return { by: 'annotation', reason: `${annotation.key}${annotation.reason ? `: ${annotation.reason}` : ''}` };
    }
  }
  return undefined;
}

const KEPT: SuppressionVerdict = { kind: 'kept' };

function configSuppression(entries: readonly IgnoreEntry[], subject: SuppressionSubject, today: string): SuppressionVerdict {
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
    // Stryker disable next-line ConditionalExpression: undefined < today is false anyway; the test is for the type.
    if (entry.expires !== undefined && entry.expires < today) {
      expired ??= `the exemption "${entry.reason}" expired on ${entry.expires}`;
      continue;
    }
    return { kind: 'suppressed', suppression: { by: 'config', reason: entry.reason } };
  }
  return expired === undefined ? { kind: 'kept' } : { kind: 'expired', note: expired };
}
