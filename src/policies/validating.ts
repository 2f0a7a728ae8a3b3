// The ValidatingAdmissionPolicies: two, each with the CEL of every rule that has one, told apart by
// what their binding does with a failure. A namespace's mode (from the parameters and its label)
// decides what each reports there: warn shows errors and warnings as warnings; enforce denies errors
// and warns of warnings; infos go to the audit log only (as audit annotations), as the webhook never
// shows them. One validation per policy lists every rule's findings: the API server type-checks
// each validation against every kind the policy matches, so two validations cost a fraction of one
// per rule and role.
import { celMessagesOf, type AnyRule, type RulePolicyCheck, type Severity } from '../engine/rule.js';
import { bind, celString } from '../engine/cel.js';
import { bindingReferences, matchConstraints, modeExpression, POLICY_PREFIX, policyMetadata, sharedVariables } from './shape.js';
import { suppressed } from './suppression-cel.js';

export type PolicyRole = 'warn' | 'enforce-deny';

interface Role {
  /** The severities it reports, by the namespace's mode. */
  shown: { warn: Severity[]; enforce: Severity[] };
  actions: string[];
}

export const ROLES: Record<PolicyRole, Role> = {
  warn: { shown: { warn: ['error', 'warning'], enforce: ['warning'] }, actions: ['Warn', 'Audit'] },
  'enforce-deny': { shown: { warn: [], enforce: ['error'] }, actions: ['Deny', 'Audit'] },
};

/** The rules with CEL, and their checks. */
export function policyRules(rules: readonly AnyRule[]): { rule: AnyRule; check: RulePolicyCheck }[] {
  return rules.flatMap((rule) => ('over' in rule.meta.policy ? [{ rule, check: rule.meta.policy }] : []));
}

/** Said instead when the findings do not fit in one message (the API server drops a message over 5 KiB). */
const TOO_LONG = "probe-lint: more problems than one message holds; the audit log has each rule's findings as an annotation";

export function validatingPolicy(role: PolicyRole, rules: readonly AnyRule[]): Record<string, unknown> {
  const { shown } = ROLES[role];
  const denying = role === 'enforce-deny';
  const checked = policyRules(rules);
  const severities = (list: Severity[]) => `[${list.map(celString).join(', ')}]`;
  const active = shown.warn.length === 0 ? `variables.mode == 'enforce'` : `variables.mode != 'off'`;
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
      // A variable reads only those before it.
      variables: [
        ...sharedVariables(rules.map((rule) => rule.meta.id)),
        { name: 'mode', expression: modeExpression() },
        { name: 'active', expression: `${active} && variables.changed` },
        { name: 'shownSeverities', expression: `variables.mode == 'enforce' ? ${severities(shown.enforce)} : ${severities(shown.warn)}` },
        // Per rule, what it reports: one text per container (or for the object), suppressed ones left out.
        ...checked.map(({ rule, check }) => ({
          name: foundVariable(rule.meta.id),
          expression: found(rule.meta.id, check.problems(celMessagesOf(rule)), check.over, denying),
        })),
        // What a rule reports only as an info (a case the policy cannot grade higher): written to the audit log, never shown.
        ...checked.flatMap(({ rule, check }) =>
          check.infoProblems === undefined || denying
            ? []
            : [{ name: infoVariable(rule.meta.id), expression: found(rule.meta.id, check.infoProblems(celMessagesOf(rule)), check.over, denying) }],
        ),
        // "[rule] texts" for each rule with findings at a severity this policy shows. One list of
        // strings, not a sum of one- and zero-item lists: each list literal gives CEL's type checker a
        // type to infer, and kube-controller-manager's checking grows with their square.
        {
          name: 'shown',
          expression: `[${checked
            .map(({ rule, check }) => {
              const id = rule.meta.id;
              return `${severity(id, check.severity ?? rule.meta.severity)} in variables.shownSeverities && size(variables.${foundVariable(id)}) > 0 ? ${celString(`[${id}] `)} + variables.${foundVariable(id)}.join('; ') : ''`;
            })
            .join(', ')}].filter(t, t != '')`,
        },
      ],
      validations: [{ expression: `!variables.active || size(variables.shown) == 0`, messageExpression: `variables.shown.join(' ')`, message: TOO_LONG }],
      // The API server keeps one validation failure per request in the audit log, and the warn policy's
      // findings at every severity (infos too) also go to an annotation per rule, <policy>/<rule id>.
      auditAnnotations: denying
        ? []
        : checked.map(({ rule, check }) => auditAnnotation(rule.meta.id, check.severity ?? rule.meta.severity, check.infoProblems !== undefined)),
    },
  };
}

/** The name of a rule's variable: CEL identifiers have no dashes. */
function foundVariable(id: string): string {
  return `found_${id.replace(/-/g, '_')}`;
}

function infoVariable(id: string): string {
  return `info_${id.replace(/-/g, '_')}`;
}

/** CEL for the list of texts a rule reports: `container "web": problem; problem`, or the object's problems. */
function found(id: string, problemsCel: string, over: RulePolicyCheck['over'], denying: boolean): string {
  const problems = `(${problemsCel})`;
  if (over === 'object') return `${suppressed(id, undefined, denying)} ? [] : ${problems}`;
  const containers = over === 'probed' ? 'variables.probed' : over === 'longRunning' ? 'variables.longRunning' : 'variables.longRunningProbed';
  const text = bind('ps', problems, `(size(ps) > 0 ? 'container "' + c.name + '": ' + ps.join('; ') : '')`);
  return `${containers}.filter(c, !${suppressed(id, 'c', denying)}).map(c, ${text}).filter(t, t != '')`;
}

/** CEL: the rule's severity, from the parameters (`off` when it is turned off). */
function severity(id: string, defaultSeverity: Severity): string {
  return `params.data[?${celString(`severity.${id}`)}].orValue(${celString(defaultSeverity)})`;
}

/**
 * The rule's findings as an audit annotation, at any severity; the empty string, which the API
 * server omits, when there are none (a conditional null does not type-check: the expression must be
 * a string or null).
 */
function auditAnnotation(id: string, defaultSeverity: Severity, infos: boolean): Record<string, string> {
  const found = infos ? `(variables.${foundVariable(id)} + variables.${infoVariable(id)})` : `variables.${foundVariable(id)}`;
  return { key: id, valueExpression: `variables.active && ${severity(id, defaultSeverity)} != 'off' && size(${found}) > 0 ? ${found}.join('; ') : ''` };
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
