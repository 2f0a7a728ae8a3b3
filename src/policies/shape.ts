// What the policies match and the CEL variables every rule's CEL reads: where each kind keeps its
// pod spec and pod metadata, the containers by role, the annotations, the namespace's mode.
import { MODE_LABEL } from '../engine/admission-names.js';
import { celString } from '../engine/cel.js';
import { POD_SPEC_PATHS } from '../model/pod-site.js';
import { suppressionVariables } from './suppression-cel.js';

export const POLICY_PREFIX = 'probe-lint';

/** Metadata of every object `probe-lint policies` makes. */
export function policyMetadata(name: string, namespace?: string): Record<string, unknown> {
  return { name, ...(namespace !== undefined ? { namespace } : {}), labels: { 'app.kubernetes.io/name': 'probe-lint' } };
}

/**
 * What every binding shares: its parameters, and the namespaces probe-lint never checks. Without
 * its ConfigMap a binding admits everything, rather than denying everything.
 */
export function bindingReferences(parameters: { name: string; namespace: string }, excluded: readonly string[]): Record<string, unknown> {
  return {
    paramRef: { ...parameters, parameterNotFoundAction: 'Allow' },
    matchResources: { namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: [...excluded] }] } },
  };
}

/** Pods on CREATE only (their probes are immutable), everything else on CREATE and UPDATE. */
export function matchConstraints(): Record<string, unknown> {
  const rule = (group: string, resources: readonly string[], operations: string[]) => ({
    apiGroups: [group],
    apiVersions: ['v1'],
    operations,
    resources: [...resources],
    scope: 'Namespaced',
  });
  return {
    resourceRules: [
      rule('', ['pods'], ['CREATE']),
      rule('', ['replicationcontrollers', 'podtemplates'], ['CREATE', 'UPDATE']),
      rule('apps', ['deployments', 'statefulsets', 'daemonsets', 'replicasets'], ['CREATE', 'UPDATE']),
      rule('batch', ['jobs', 'cronjobs'], ['CREATE', 'UPDATE']),
    ],
  };
}

/**
 * CEL for the pod spec (or pod metadata, `part: 'metadata'`) of `object` (or `oldObject`), from the
 * model's table of where each kind keeps it (the metadata sits beside the spec). The most common
 * place, `spec.template`, is the fallback.
 */
export function podPart(object: 'object' | 'oldObject', part: 'spec' | 'metadata'): string {
  return kindSwitch(object, (path) => `${object}${celPath(path, part)}`);
}

/** CEL: whether the pod template of `object` has metadata (a Pod always does). */
function hasPodMetadata(): string {
  return kindSwitch('object', (path) => `has(object${celPath(path, 'metadata')})`);
}

const TEMPLATE_SPEC = '/spec/template/spec';

function kindSwitch(object: string, expression: (path: string) => string): string {
  const cases = Object.entries(POD_SPEC_PATHS).filter(([, path]) => path !== TEMPLATE_SPEC);
  return `(${cases.map(([kind, path]) => `${object}.kind == ${celString(kind)} ? ${expression(path)} : `).join('')}${expression(TEMPLATE_SPEC)})`;
}

/** `/spec/template/spec` as `.spec.template.spec`, or the metadata beside it. */
function celPath(specPath: string, part: 'spec' | 'metadata'): string {
  return (part === 'spec' ? specPath : specPath.replace(/\/spec$/, '/metadata')).replace(/\//g, '.');
}

const annotationsOf = (metadata: string) => `(has(${metadata}.annotations) ? ${metadata}.annotations : {})`;

/**
 * The namespace's mode, as the webhook's NamespacePolicy decides it, from the parameters: a
 * namespace pinned in the config wins; else the label may tighten the default (tighten-only), set
 * any mode (trusted), or is disregarded (ignored). Inline CEL: match conditions cannot read variables.
 */
export function modeExpression(): string {
  const pinned = `params.data[?'namespaceModes'].orValue('').split(',').filter(e, e.startsWith(request.namespace + '='))`;
  const base = `params.data[?'defaultMode'].orValue('warn')`;
  const trust = `params.data[?'namespaceLabels'].orValue('tighten-only')`;
  const labels = `(namespaceObject != null && has(namespaceObject.metadata.labels) ? namespaceObject.metadata.labels : {})`;
  const label = `${labels}[?${celString(MODE_LABEL)}].orValue('')`;
  const rank = (mode: string) => `(${mode} == 'enforce' ? 2 : ${mode} == 'warn' ? 1 : 0)`;
  const labelled = `(${trust} != 'ignored' && ${label} in ['enforce', 'warn', 'off'])`;
  return (
    `(size(${pinned}) > 0 ? ${pinned}[0].substring(size(request.namespace) + 1) : ` +
    `!${labelled} ? ${base} : ${trust} == 'trusted' ? ${label} : ${rank(label)} > ${rank(base)} ? ${label} : ${base})`
  );
}

/** The variables the rules' CEL reads (`variables.<name>`); `knownRules` feeds ignore-annotation-unknown-rule. */
export function sharedVariables(knownRules: readonly string[]): { name: string; expression: string }[] {
  const spec = 'variables.spec';
  return [
    { name: 'spec', expression: podPart('object', 'spec') },
    { name: 'objectAnnotations', expression: annotationsOf('object.metadata') },
    // A Pod's own metadata is its pod metadata: read once.
    {
      name: 'podAnnotations',
      expression: `object.kind == 'Pod' ? {} : ${hasPodMetadata()} ? ${annotationsOf(podPart('object', 'metadata'))} : {}`,
    },
    {
      name: 'probed',
      expression: `${spec}.containers + (has(${spec}.initContainers) ? ${spec}.initContainers.filter(c, has(c.restartPolicy) && c.restartPolicy == 'Always') : [])`,
    },
    {
      name: 'allContainers',
      expression: `${spec}.containers + (has(${spec}.initContainers) ? ${spec}.initContainers : []) + (has(${spec}.ephemeralContainers) ? ${spec}.ephemeralContainers : [])`,
    },
    // The regular containers that run until stopped, outside Jobs and CronJobs (which run to
    // completion): the pod's restartPolicy is Always, or the container's own is (a container's
    // Never does not make it run to completion in a pod that keeps running).
    {
      name: 'longRunning',
      expression:
        `!(object.kind in ['Job', 'CronJob']) ? ${spec}.containers.filter(c, (!has(${spec}.restartPolicy) || ${spec}.restartPolicy == 'Always') || ` +
        `(has(c.restartPolicy) && c.restartPolicy == 'Always')) : []`,
    },
    // And the sidecars, which live as long as such a container does.
    {
      name: 'longRunningProbed',
      expression: `size(variables.longRunning) > 0 && has(${spec}.initContainers) ? variables.longRunning + ${spec}.initContainers.filter(c, has(c.restartPolicy) && c.restartPolicy == 'Always') : variables.longRunning`,
    },
    // On UPDATE, an object whose pod spec did not change is never reported again (a scaled legacy Deployment).
    { name: 'changed', expression: `request.operation == 'CREATE' || oldObject == null || ${podPart('oldObject', 'spec')} != ${spec}` },
    { name: 'name', expression: `has(object.metadata.name) ? object.metadata.name : ''` },
    { name: 'knownRules', expression: `[${knownRules.map(celString).join(', ')}]` },
    ...suppressionVariables(),
  ];
}
