// What the policies match and the CEL variables every rule's CEL reads: where each kind keeps its
// pod spec and pod metadata, the containers by role, the annotations, the namespace's mode.
import { MODE_LABEL } from '../engine/admission-names.js';
import { celString } from '../engine/cel.js';

/** The kinds with a pod spec, as the webhook matches them (pod-site.ts knows the same paths). */
export const POD_KINDS = {
  core: { group: '', resources: ['pods', 'replicationcontrollers', 'podtemplates'] },
  apps: { group: 'apps', resources: ['deployments', 'statefulsets', 'daemonsets', 'replicasets'] },
  batch: { group: 'batch', resources: ['jobs', 'cronjobs'] },
} as const;

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
      rule('apps', POD_KINDS.apps.resources, ['CREATE', 'UPDATE']),
      rule('batch', POD_KINDS.batch.resources, ['CREATE', 'UPDATE']),
    ],
  };
}

/** CEL for the pod spec (or pod metadata, `part: 'metadata'`) of `object` (or `oldObject`). */
export function podPart(object: 'object' | 'oldObject', part: 'spec' | 'metadata'): string {
  return (
    `(${object}.kind == 'Pod' ? ${object}.${part === 'spec' ? 'spec' : 'metadata'} : ` +
    `${object}.kind == 'PodTemplate' ? ${object}.template.${part} : ` +
    `${object}.kind == 'CronJob' ? ${object}.spec.jobTemplate.spec.template.${part} : ${object}.spec.template.${part})`
  );
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
    // Jobs and CronJobs run to completion; so do pods whose restartPolicy is not Always.
    {
      name: 'longRunning',
      expression: `!(object.kind in ['Job', 'CronJob']) && (!has(${spec}.restartPolicy) || ${spec}.restartPolicy == 'Always') ? ${spec}.containers : []`,
    },
    // On UPDATE, an object whose pod spec did not change is never reported again (a scaled legacy Deployment).
    { name: 'changed', expression: `request.operation == 'CREATE' || oldObject == null || ${podPart('oldObject', 'spec')} != ${spec}` },
    { name: 'name', expression: `has(object.metadata.name) ? object.metadata.name : ''` },
    { name: 'knownRules', expression: `[${knownRules.map(celString).join(', ')}]` },
  ];
}

function hasPodMetadata(): string {
  return (
    `(object.kind == 'PodTemplate' ? has(object.template.metadata) : ` +
    `object.kind == 'CronJob' ? has(object.spec.jobTemplate.spec.template.metadata) : has(object.spec.template.metadata))`
  );
}
