// `probe-lint policies`: the rules as ValidatingAdmissionPolicies and MutatingAdmissionPolicies,
// their bindings, and the config as their parameters, ready for kubectl apply.
import type { ProbeLintConfig } from '../engine/config.js';
import type { AnyRule } from '../engine/rule.js';
import { mutableRules, mutatingBinding, mutatingPolicy } from './mutating.js';
import { policyParameters } from './params.js';
import { POLICY_PREFIX, policyMetadata } from './shape.js';
import { ROLES, validatingBinding, validatingPolicy, type PolicyRole } from './validating.js';

export interface PolicyOptions {
  /** Where the parameters ConfigMap lives (probe-lint's namespace). */
  namespace: string;
  /** Namespaces the bindings leave out, besides kube-system and `namespace`. */
  excludeNamespaces?: readonly string[];
  /** YYYY-MM-DD: exemptions that expired before it are left out. */
  today: string;
}

export const PARAMETERS_NAME = `${POLICY_PREFIX}-policy`;

/** The policies alone: they depend on the rules only, never on the config (the chart ships them as they are). */
export function policyDefinitions(rules: readonly AnyRule[]): Record<string, unknown>[] {
  const knownRules = rules.map((rule) => rule.meta.id);
  return [
    ...(Object.keys(ROLES) as PolicyRole[]).map((role) => validatingPolicy(role, rules)),
    ...mutableRules(rules).map((mutable) => mutatingPolicy(mutable, knownRules)),
  ];
}

/** Everything to apply: the parameters, the policies and their bindings. */
export function generatePolicies(config: ProbeLintConfig, rules: readonly AnyRule[], options: PolicyOptions): Record<string, unknown>[] {
  const parameters = { name: PARAMETERS_NAME, namespace: options.namespace };
  const excluded = [...new Set(['kube-system', options.namespace, ...(options.excludeNamespaces ?? [])])];
  return [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: policyMetadata(PARAMETERS_NAME, options.namespace),
      data: policyParameters(config, rules, options.today),
    },
    ...policyDefinitions(rules),
    ...(Object.keys(ROLES) as PolicyRole[]).map((role) => validatingBinding(role, parameters, excluded)),
    ...mutableRules(rules).map((mutable) => mutatingBinding(mutable, parameters, excluded)),
  ];
}
