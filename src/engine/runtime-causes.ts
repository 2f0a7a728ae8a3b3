// Ties each runtime finding (what the kubelet did) to the static findings on the same container
// (what could make it do so), and puts the runtime findings first: a platform team fixes what is
// going wrong before what could.
import type { Finding } from './finding.js';
import type { AnyRule } from './rule.js';

// Stryker disable next-line StringLiteral: what stands for a missing namespace or name only needs to be the same on both sides.
const key = (finding: Finding) => `${finding.identity.kind}/${finding.identity.namespace ?? ''}/${finding.identity.name ?? ''}\u0000${finding.container ?? ''}`;

/** Adds the likely causes to each runtime finding's message and `causes`, in place. */
export function linkRuntimeFindings(findings: readonly Finding[], rules: readonly AnyRule[]): void {
  const runtime = new Set(rules.filter((rule) => rule.meta.readsEvidence).map((rule) => rule.meta.id));
  const staticByContainer = new Map<string, Finding[]>();
  for (const finding of findings) {
    // Stryker disable next-line ConditionalExpression: a runtime finding always names its container, so a pod-level one could match none.
    if (runtime.has(finding.rule) || finding.container === undefined) continue;
    const list = staticByContainer.get(key(finding));
    if (list) list.push(finding);
    else staticByContainer.set(key(finding), [finding]);
  }
  for (const finding of findings) {
    if (!runtime.has(finding.rule)) continue;
    const causes = staticByContainer.get(key(finding)) ?? [];
    if (causes.length === 0) continue;
    finding.causes = causes.map((cause) => ({ rule: cause.rule, messageId: cause.messageId }));
    const list = causes.map((cause) => `${cause.rule} (${cause.short})`).join('; ');
    finding.message += ` The likely cause, found on this container's spec: ${list}.`;
    finding.short += ` (likely cause: ${[...new Set(causes.map((cause) => cause.rule))].join(', ')})`;
  }
}

/** Runtime findings first, each group in its given order. */
export function runtimeFirst<T extends Finding>(findings: readonly T[], rules: readonly AnyRule[]): T[] {
  const runtime = new Set(rules.filter((rule) => rule.meta.readsEvidence).map((rule) => rule.meta.id));
  return [...findings.filter((finding) => runtime.has(finding.rule)), ...findings.filter((finding) => !runtime.has(finding.rule))];
}
