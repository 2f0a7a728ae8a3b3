// The ValidatingAdmissionPolicies: one per role a finding can play at admission, each with the
// CEL of every rule that has one. A namespace's mode (from the parameters and its label) picks the
// policy that runs there: warn shows errors and warnings as warnings; enforce denies errors and
// warns on warnings; infos go to the audit log only, as the webhook never shows them.
import type { AnyRule, RulePolicyCheck, Severity } from '../engine/rule.js';
import { bind, celString } from '../engine/cel.js';
import { bindingReferences, matchConstraints, modeExpression, POLICY_PREFIX, policyMetadata, sharedVariables } from './shape.js';
import { suppressed } from './suppression-cel.js';

export type PolicyRole = 'warn' | 'enforce-deny' | 'enforce-warn' | 'audit';

interface Role {
  mode: 'warn' | 'enforce' | 'any';
  severities: Severity[];
  actions: string[];
}

export const ROLES: Record<PolicyRole, Role> = {
  warn: { mode: 'warn', severities: ['error', 'warning'], actions: ['Warn', 'Audit'] },
  'enforce-deny': { mode: 'enforce', severities: ['error'], actions: ['Deny', 'Audit'] },
  'enforce-warn': { mode: 'enforce', severities: ['warning'], actions: ['Warn', 'Audit'] },
  audit: { mode: 'any', severities: ['info'], actions: ['Audit'] },
};

/** The rules with CEL, and their checks. */
export function policyRules(rules: readonly AnyRule[]): { rule: AnyRule; check: RulePolicyCheck }[] {
  return rules.flatMap((rule) => ('over' in rule.meta.policy ? [{ rule, check: rule.meta.policy }] : []));
}

export function validatingPolicy(role: PolicyRole, rules: readonly AnyRule[]): Record<string, unknown> {
  const { mode, severities } = ROLES[role];
  const denying = role === 'enforce-deny';
  const modeCondition = mode === 'any' ? `${modeExpression()} != 'off'` : `${modeExpression()} == ${celString(mode)}`;
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: policyMetadata(`${POLICY_PREFIX}-${role}`),
    spec: {
      // A CEL error (a shape no rule foresaw) admits the object, as the webhook's failurePolicy does.
      failurePolicy: 'Ignore',
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: matchConstraints(),
      // Not a match condition: those do not see namespaceObject (its labels set the mode).
      variables: [
        { name: 'active', expression: modeCondition },
        ...sharedVariables(rules.map((rule) => rule.meta.id)),
        // Per rule, what it reports: one text per container (or for the object), suppressed ones left out.
        ...policyRules(rules).map(({ rule, check }) => ({ name: foundVariable(rule.meta.id), expression: found(rule.meta.id, check, denying) })),
      ],
      validations: policyRules(rules).map(({ rule, check }) => validation(rule.meta.id, check.severity ?? rule.meta.severity, severities)),
      // The API server keeps one validation failure per request in the audit log: an info beside a
      // warning, or a second info, would be lost. Every rule's findings also go to an annotation of
      // its own, <policy>/<rule id>, which the audit log keeps for each.
      auditAnnotations: policyRules(rules).map(({ rule, check }) => auditAnnotation(rule.meta.id, check.severity ?? rule.meta.severity, severities)),
    },
  };
}

/** The name of a rule's variable: CEL identifiers have no dashes. */
function foundVariable(id: string): string {
  return `found_${id.replace(/-/g, '_')}`;
}

/** CEL for the list of texts a rule reports: `container "web": problem; problem`, or the object's problems. */
function found(id: string, check: RulePolicyCheck, denying: boolean): string {
  const problems = `(${check.problems})`;
  if (check.over === 'object') return `${suppressed(id, undefined, denying)} ? [] : ${problems}`;
  const containers = check.over === 'probed' ? 'variables.probed' : 'variables.longRunning';
  const text = bind('ps', problems, `(size(ps) > 0 ? 'container "' + c.name + '": ' + ps.join('; ') : '')`);
  return `${containers}.filter(c, !${suppressed(id, 'c', denying)}).map(c, ${text}).filter(t, t != '')`;
}

/** CEL: the rule's findings count in this policy (it is active, at one of the policy's severities, and the object changed). */
function applies(id: string, defaultSeverity: Severity, severities: Severity[]): string {
  const severity = `params.data[?${celString(`severity.${id}`)}].orValue(${celString(defaultSeverity)})`;
  return `variables.active && ${severity} in [${severities.map(celString).join(', ')}] && variables.changed`;
}

function validation(id: string, defaultSeverity: Severity, severities: Severity[]): Record<string, string> {
  return {
    expression: `!(${applies(id, defaultSeverity, severities)}) || size(variables.${foundVariable(id)}) == 0`,
    messageExpression: `'[${id}] ' + variables.${foundVariable(id)}.join('; ')`,
  };
}

/**
 * The same findings as an audit annotation; the empty string, which the API server omits, when there
 * are none (a conditional null does not type-check: the expression must be a string or null).
 */
function auditAnnotation(id: string, defaultSeverity: Severity, severities: Severity[]): Record<string, string> {
  return {
    key: id,
    valueExpression: `(${applies(id, defaultSeverity, severities)}) && size(variables.${foundVariable(id)}) > 0 ? variables.${foundVariable(id)}.join('; ') : ''`,
  };
}

/** A binding for each policy: its parameters, and the namespaces probe-lint never checks. */
export function validatingBinding(
  role: PolicyRole,
  parameters: { name: string; namespace: string },
  excludedNamespaces: readonly string[],
): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: policyMetadata(`${POLICY_PREFIX}-${role}`),
    spec: {
      policyName: `${POLICY_PREFIX}-${role}`,
      validationActions: ROLES[role].actions,
      ...bindingReferences(parameters, excludedNamespaces),
    },
  };
}
