import type { Container, PodSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { CONTAINER_TYPE, decodeIssues, POD_SPEC_TYPE, type DecodeIssue } from './decode.js';
import { isObject } from './json-value.js';
import { joinPointer, valueAt } from './pointer.js';
import { isTemplateParameter } from './validation.js';
import { groupOf, type KubeObject, type Resource } from './resource.js';

/**
 * How the kubelet treats a container. Only `container` and `sidecar` (an init container with
 * `restartPolicy: Always`) are ever probed (kubelet prober_manager.go AddPod).
 */
export type ContainerRole = 'container' | 'sidecar' | 'init' | 'ephemeral';

export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';

/**
 * Who runs the pod spec: the API server and kubelet as they are, or Knative Serving, which
 * rewrites probes (they go through queue-proxy, a probe may leave out the port, a readiness
 * probe is added when there is none, and periodSeconds 0 on readiness means probing aggressively).
 */
export type Platform = 'kubernetes' | 'knative';

export interface ContainerSite {
  name: string;
  role: ContainerRole;
  container: Container;
  /** Pointer to the container inside the document. */
  pointer: string;
  /**
   * What happens to the container after the kubelet kills it: the container's own policy, else the
   * pod's (ContainerRestartRules, beta and on since 1.35; a probe failure restarts it unless the
   * policy is Never: kuberuntime_manager.go computePodActions).
   */
  restartPolicy: RestartPolicy;
  /**
   * It runs until stopped: a regular container whose pod's policy, or its own, is Always, in a kind
   * that does not run to completion; a sidecar when its pod has such a container. A container's own
   * Never in a Deployment's pod does not make it run to completion: it still serves, and a liveness
   * kill ends it for good while the Pod stays. The rules about serving traffic and cascading
   * restarts judge only these.
   */
  longRunning: boolean;
  /** Values in this container (probes included) that the API server could not decode. */
  decodeIssues: DecodeIssue[];
  /** The operator that gives this container a livenessProbe and a readinessProbe when it has none (KubeRay's Ray container). */
  probesAddedBy?: string;
}

/** A pod spec found inside a resource, with its containers and the pod template's metadata. */
export interface PodSite {
  resource: Resource;
  spec: PodSpec;
  /** Pointer to the pod spec inside the document. */
  pointer: string;
  /** The pod's (or pod template's) metadata: labels for Service selection, annotations for suppression. */
  podMetadata: ObjectMeta | undefined;
  containers: ContainerSite[];
  /** Whether any of its containers runs until stopped (see ContainerSite.longRunning). */
  longRunning: boolean;
  platform: Platform;
  /** Values of the pod spec and metadata (containers aside) that the API server could not decode. */
  decodeIssues: DecodeIssue[];
}

// Where each built-in kind keeps its pod spec (k8s.io/api v1.36).
export const POD_SPEC_PATHS: Readonly<Record<string, string>> = {
  Pod: '/spec',
  PodTemplate: '/template/spec',
  ReplicationController: '/spec/template/spec',
  Deployment: '/spec/template/spec',
  ReplicaSet: '/spec/template/spec',
  StatefulSet: '/spec/template/spec',
  DaemonSet: '/spec/template/spec',
  Job: '/spec/template/spec',
  CronJob: '/spec/jobTemplate/spec/template/spec',
};

const BUILT_IN_GROUPS = new Set(['', 'apps', 'extensions', 'batch']);

/**
 * Custom kinds whose pod template sits at a known place, found there even when a container names
 * no image: an OpenShift DeploymentConfig leaves `image` out when an image-change trigger fills it.
 */
const KNOWN_CUSTOM_POD_SPEC_PATHS: Readonly<Record<string, string>> = {
  'apps.openshift.io/DeploymentConfig': '/spec/template/spec',
  'v1/DeploymentConfig': '/spec/template/spec',
};
const RUN_TO_COMPLETION_KINDS = new Set(['Job', 'CronJob']);
const KNATIVE_SERVING_GROUP = 'serving.knative.dev';
/** Custom resources are searched this deep for pod templates; real ones sit at depth 3 to 6. */
const MAX_SEARCH_DEPTH = 10;
/** And at most this many nodes of one custom resource are looked at (YAML aliases can make a small file a huge tree). */
const MAX_SEARCH_NODES = 20_000;

export function isBuiltInWorkload(object: KubeObject): boolean {
  return Object.hasOwn(POD_SPEC_PATHS, object.kind) && BUILT_IN_GROUPS.has(groupOf(object.apiVersion));
}

/** Every pod spec in a resource: the known path of a built-in kind, or any pod-spec-shaped object in another kind. */
export function findPodSites(resource: Resource): PodSite[] {
  const { object } = resource;
  if (isBuiltInWorkload(object)) {
    const relative = POD_SPEC_PATHS[object.kind]!;
    const spec = valueAt(object, relative);
    return isObject(spec) && spec.containers !== undefined && spec.containers !== null
      ? [makePodSite(resource, resource.pointer + relative, spec as unknown as PodSpec)]
      : [];
  }
  const key = `${groupOf(object.apiVersion) || 'v1'}/${object.kind}`;
  // Own keys only: a kind may be "toString", which the object's prototype answers.
  const known = Object.hasOwn(KNOWN_CUSTOM_POD_SPEC_PATHS, key) ? KNOWN_CUSTOM_POD_SPEC_PATHS[key] : undefined;
  if (known !== undefined) {
    const spec = valueAt(object, known);
    if (isObject(spec) && Array.isArray(spec.containers) && spec.containers.length > 0)
      return [makePodSite(resource, resource.pointer + known, spec as unknown as PodSpec)];
  }
  // Kubernetes' own kinds are known: outside the workloads above they hold no pod spec (a Service,
  // a ConfigMap…), so only custom resources are searched.
  if (isKubernetesGroup(groupOf(object.apiVersion))) return [];
  const sites: PodSite[] = [];
  const search: SearchState = { visited: new Set(), budget: MAX_SEARCH_NODES };
  searchPodSpecs(resource, object.spec, ['spec'], sites, search);
  return sites;
}

/** The core group, the unqualified built-in groups (apps, batch, policy…) and *.k8s.io. */
function isKubernetesGroup(group: string): boolean {
  return !group.includes('.') || group.endsWith('.k8s.io');
}

interface SearchState {
  /** Nodes already looked at: an alias shares one node between several places, which are searched once. */
  visited: Set<object>;
  budget: number;
}

/** Depth-first search for pod-spec-shaped objects; `path` is the way down from the object, joined into a pointer only on a match. */
function searchPodSpecs(resource: Resource, node: unknown, path: (string | number)[], out: PodSite[], search: SearchState): void {
  if (node === null || typeof node !== 'object' || path.length > MAX_SEARCH_DEPTH) return;
  if (search.visited.has(node) || --search.budget < 0) return;
  search.visited.add(node);
  if (isPodSpecShaped(node)) {
    out.push(makePodSite(resource, joinPointer(resource.pointer, ...path), node));
    return;
  }
  // A list's keys are its indexes, which join into the same pointer as numbers.
  for (const key of Object.keys(node)) {
    path.push(key);
    searchPodSpecs(resource, (node as Record<string, unknown>)[key], path, out, search);
    path.pop();
  }
}

/**
 * Inside custom resources, a pod spec is an object whose `containers` is a non-empty list of
 * objects that all name an image, so operator CRDs that carry partial container overrides (a
 * name and some env) are not mistaken for pods.
 */
function isPodSpecShaped(value: object): value is PodSpec {
  const containers = (value as { containers?: unknown }).containers;
  return Array.isArray(containers) && containers.length > 0 && containers.every((container) => isObject(container) && typeof container.image === 'string');
}

function makePodSite(resource: Resource, pointer: string, spec: PodSpec): PodSite {
  // The metadata beside the spec: a Pod's own (/spec → /metadata), a template's (…/template/spec →
  // …/template/metadata). A pod spec found elsewhere in a custom resource has none of its own.
  // Stryker disable next-line StringLiteral: a pod spec of a custom resource that does not end in /spec has no "metadata" where the cut lands.
  const metadata = pointer.endsWith('/spec') ? valueAt(resource.document, `${pointer.slice(0, -'/spec'.length)}/metadata`) : undefined;
  const runsToCompletion = RUN_TO_COMPLETION_KINDS.has(resource.object.kind);
  const podRestartPolicy = restartPolicyOf(spec.restartPolicy) ?? (runsToCompletion ? 'OnFailure' : 'Always');
  const containers = containerSites(spec, pointer, podRestartPolicy, resource.parameterized === true);
  // A regular container runs until stopped when the pod's policy restarts it whatever its exit, or its
  // own policy does (a container's Always overrides a pod's Never); its own Never does not make it
  // run to completion in a pod that keeps running: a liveness kill then ends it for good. Jobs and
  // CronJobs run to completion; a sidecar lives as long as a container that runs until stopped.
  for (const container of containers)
    container.longRunning = !runsToCompletion && container.role === 'container' && (podRestartPolicy === 'Always' || container.restartPolicy === 'Always');
  const podLongRunning = containers.some((container) => container.longRunning);
  for (const container of containers) if (container.role === 'sidecar') container.longRunning = podLongRunning;
  const ray = rayContainer(resource, pointer, containers);
  if (ray !== undefined) ray.probesAddedBy = 'KubeRay';
  return {
    resource,
    spec,
    pointer,
    podMetadata: isObject(metadata) ? metadata : undefined,
    containers,
    longRunning: podLongRunning,
    platform: groupOf(resource.object.apiVersion) === KNATIVE_SERVING_GROUP ? 'knative' : 'kubernetes',
    decodeIssues: relevantPodIssues(decodeIssues(spec, POD_SPEC_TYPE, pointer, 'spec'), containers),
  };
}

const KUBERAY_GROUP = 'ray.io';
/** Head and worker group templates of RayCluster, and of the clusters RayService and RayJob describe. */
// Stryker disable next-line Regex: the pointers tested are those of pod specs, which end at the spec.
const RAY_GROUP_TEMPLATE = /\/(?:headGroupSpec|workerGroupSpecs\/\d+)\/template\/spec$/;

/**
 * The Ray container of a KubeRay group template: the operator gives the first container a liveness
 * and a readiness probe when it has none (ray-operator common/pod.go initLivenessAndReadinessProbe,
 * on unless the operator runs with ENABLE_PROBES_INJECTION=false).
 */
function rayContainer(resource: Resource, pointer: string, containers: ContainerSite[]): ContainerSite | undefined {
  if (groupOf(resource.object.apiVersion) !== KUBERAY_GROUP || !RAY_GROUP_TEMPLATE.test(pointer)) return undefined;
  // Stryker disable next-line ConditionalExpression: the first site is containers/0 whenever that is a container at all.
  return containers.find((site) => site.pointer === joinPointer(pointer, 'containers', 0));
}

/**
 * The pod-level values that matter to probes: the container lists themselves, and hostNetwork when
 * a probe names a host. A value elsewhere that the API server cannot decode is not probe-lint's
 * to report (the object may be a template with placeholders); nothing is built on it either.
 */
function relevantPodIssues(issues: DecodeIssue[], containers: readonly ContainerSite[]): DecodeIssue[] {
  const hostNamed = containers.some((site) =>
    PROBE_FIELDS.some((field) => {
      const probe = (site.container as unknown as Record<string, { httpGet?: { host?: unknown }; tcpSocket?: { host?: unknown } } | undefined>)[field];
      return probe?.httpGet?.host !== undefined || probe?.tcpSocket?.host !== undefined;
    }),
  );
  return issues.filter((issue) => !issue.pointer.endsWith('/hostNetwork') || hostNamed);
}

/**
 * The values of a container that matter to its probes: the probes, its ports when a probe names
 * one, its env when an exec probe expands $(VAR).
 */
function relevantContainerIssues(issues: DecodeIssue[], container: Record<string, unknown>, pointer: string, parameterized: boolean): DecodeIssue[] {
  // Stryker disable next-line ConditionalExpression: a shortcut for the common case; filtering nothing gives nothing.
  if (issues.length === 0) return issues;
  // In an OpenShift Template, ${PARAM} stands for a value filled in later: not a value to judge yet.
  if (parameterized) issues = issues.filter((issue) => !isTemplateParameter(issue.value, true));
  const probes = PROBE_FIELDS.map((field) => container[field]).filter(isObject);
  const namesPort = probes.some((probe) =>
    ['httpGet', 'tcpSocket'].some((handler) => typeof (probe[handler] as { port?: unknown } | undefined)?.port === 'string'),
  );
  // Stryker disable next-line StringLiteral: any text without "$(" does, for a probe without a command.
  const expands = probes.some((probe) => JSON.stringify((probe.exec as { command?: unknown } | undefined)?.command ?? '').includes('$('));
  return issues.filter((issue) => {
    const field = issue.pointer.slice(pointer.length + 1).split('/')[0];
    // Stryker disable next-line ConditionalExpression: split always gives a first part; the test is for the type.
    if (field !== undefined && (PROBE_FIELDS as readonly string[]).includes(field)) return true;
    if (field === 'ports') return namesPort;
    if (field === 'env') return expands;
    return false;
  });
}

const PROBE_FIELDS = ['livenessProbe', 'readinessProbe', 'startupProbe'] as const;

function restartPolicyOf(value: unknown): RestartPolicy | undefined {
  return value === 'Always' || value === 'OnFailure' || value === 'Never' ? value : undefined;
}

function containerSites(spec: PodSpec, pointer: string, podRestartPolicy: RestartPolicy, parameterized: boolean): ContainerSite[] {
  const sites: ContainerSite[] = [];
  const add = (list: unknown, field: string, roleOf: (container: Container) => ContainerRole) => {
    if (!Array.isArray(list)) return;
    list.forEach((container: unknown, index) => {
      if (!isObject(container)) return;
      const typed = container as unknown as Container;
      const role = roleOf(typed);
      const containerPointer = joinPointer(pointer, field, index);
      sites.push({
        name: typeof typed.name === 'string' ? typed.name : `#${index}`,
        role,
        container: typed,
        pointer: containerPointer,
        // A sidecar is restarted whatever the pod's policy; a regular container may set its own
        // (ContainerRestartRules); an init container's policy is the pod's.
        restartPolicy: role === 'sidecar' ? 'Always' : ((role === 'container' ? restartPolicyOf(typed.restartPolicy) : undefined) ?? podRestartPolicy),
        decodeIssues: relevantContainerIssues(decodeIssues(container, CONTAINER_TYPE, containerPointer, ''), container, containerPointer, parameterized),
        longRunning: false,
      });
    });
  };
  add(spec.containers, 'containers', () => 'container');
  add(spec.initContainers, 'initContainers', (container) => (container.restartPolicy === 'Always' ? 'sidecar' : 'init'));
  add(spec.ephemeralContainers, 'ephemeralContainers', () => 'ephemeral');
  return sites;
}
