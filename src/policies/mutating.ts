// The MutatingAdmissionPolicy for the rules with an admission opt-in (a startup probe injected
// where liveness waits long): Pods on CREATE, opted in exactly as the webhook decides it (the
// object's annotation, the namespace's config entry, the namespace label unless labels are
// ignored, the config's default), the rule's own fix, recorded in probe-lint.dev/injected.
// Workload templates stay with the webhook (webhook.mutateTemplates).
import type { AnyRule, RulePolicyCheck } from '../engine/rule.js';
import { INJECTED_ANNOTATION } from '../engine/admission-names.js';
import { celString } from '../engine/cel.js';
import { bindingReferences, modeExpression, POLICY_PREFIX, policyMetadata, sharedVariables } from './shape.js';
import { suppressed } from './suppression-cel.js';

type Mutable = { rule: AnyRule; check: RulePolicyCheck & { mutation: NonNullable<RulePolicyCheck['mutation']> } };

export function mutableRules(rules: readonly AnyRule[]): Mutable[] {
  return rules.flatMap((rule) => {
    const policy = rule.meta.policy;
    return 'over' in policy && policy.mutation !== undefined && rule.meta.admission !== undefined
      ? [{ rule, check: { ...policy, mutation: policy.mutation } }]
      : [];
  });
}

/** One policy per rule with an opt-in (each has its own opt-in). */
export function mutatingPolicy({ rule, check }: Mutable, knownRules: readonly string[]): Record<string, unknown> {
  const id = rule.meta.id;
  const optIn = rule.meta.admission!.optIn;
  const targets = (list: 'containers' | 'initContainers') => {
    const sidecar = list === 'initContainers' ? `has(c.restartPolicy) && c.restartPolicy == 'Always' && ` : '';
    const needed = `${sidecar}(${check.mutation.needed('c')}) && !${suppressed(id, 'c', false)}`;
    return `has(object.spec.${list}) ? object.spec.${list}.filter(c, ${needed}).map(c, object.spec.${list}.indexOf(c)) : []`;
  };
  const patches = (list: 'containers' | 'initContainers') =>
    check.mutation
      .patches(`object.spec.${list}[i]`, `'/spec/${list}/' + string(i)`, `Object.spec.${list}`)
      .map((patch) => `variables.${list}.map(i, ${patch})`);
  const record = `variables.containers.map(i, ${celString(`${id}:`)} + object.spec.containers[i].name) + variables.initContainers.map(i, ${celString(`${id}:`)} + object.spec.initContainers[i].name)`;
  const earlier = `variables.objectAnnotations[?${celString(INJECTED_ANNOTATION)}].orValue('')`;
  const annotation =
    `(size(variables.containers) + size(variables.initContainers) == 0 ? [] : has(object.metadata.annotations) ? ` +
    `[JSONPatch{op: 'add', path: '/metadata/annotations/' + jsonpatch.escapeKey(${celString(INJECTED_ANNOTATION)}), value: (${earlier} == '' ? '' : ${earlier} + ',') + (${record}).join(',')}] : ` +
    `[JSONPatch{op: 'add', path: '/metadata/annotations', value: {${celString(INJECTED_ANNOTATION)}: (${record}).join(',')}}])`;
  const param = (key: string, fallback: string) => `params.data[?${celString(key)}].orValue(${celString(fallback)})`;
  const pinned = `${param(`inject.${optIn.configKey}.namespaces`, '')}.split(',').filter(e, e.startsWith(request.namespace + '='))`;
  const labels = `(namespaceObject != null && has(namespaceObject.metadata.labels) ? namespaceObject.metadata.labels : {})`;
  const optedIn =
    `(has(object.metadata.annotations) && object.metadata.annotations[?${celString(optIn.label)}].orValue('') == 'true') || ` +
    `(size(${pinned}) > 0 ? ${pinned}[0].endsWith('=true') : ` +
    `${param('namespaceLabels', 'tighten-only')} != 'ignored' && ${celString(optIn.label)} in ${labels} ? ${labels}[${celString(optIn.label)}] == 'true' : ` +
    `${param(`inject.${optIn.configKey}`, 'false')} == 'true')`;
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: policyMetadata(`${POLICY_PREFIX}-${id}`),
    spec: {
      failurePolicy: 'Ignore',
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], scope: 'Namespaced' }] },
      matchConditions: [
        {
          name: 'allowed',
          expression: `${param(`inject.${optIn.configKey}.allowed`, 'true')} == 'true' && ${param(`severity.${id}`, rule.meta.severity)} != 'off'`,
        },
      ],
      // The namespace's mode and labels are read here, not in match conditions: those do not see namespaceObject.
      variables: [
        { name: 'wanted', expression: `${modeExpression()} != 'off' && (${optedIn})` },
        ...sharedVariables(knownRules),
        { name: 'containers', expression: `variables.wanted ? (${targets('containers')}) : []` },
        { name: 'initContainers', expression: `variables.wanted ? (${targets('initContainers')}) : []` },
      ],
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: [...patches('containers'), ...patches('initContainers'), annotation].join(' + ') } }],
      // After the patch the rule no longer finds what it fixed: a reinvocation changes nothing.
      reinvocationPolicy: 'IfNeeded',
    },
  };
}

export function mutatingBinding(
  { rule }: Mutable,
  parameters: { name: string; namespace: string },
  excludedNamespaces: readonly string[],
): Record<string, unknown> {
  const name = `${POLICY_PREFIX}-${rule.meta.id}`;
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: policyMetadata(name),
    spec: { policyName: name, ...bindingReferences(parameters, excludedNamespaces) },
  };
}
