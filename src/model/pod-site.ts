import type { Container, PodSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { joinPointer, valueAt } from './pointer.js';
import type { KubeObject, Resource } from './resource.js';

/**
 * How the kubelet treats a container. Only `container` and `sidecar` (an init container with
 * `restartPolicy: Always`) are ever probed (reference §2, "Probed containers").
 */
export type ContainerRole = 'container' | 'sidecar' | 'init' | 'ephemeral';

export interface ContainerSite {
  name: string;
  role: ContainerRole;
  container: Container;
  /** Pointer to the container inside the document. */
  pointer: string;
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
  /** False for Jobs, CronJobs and pods that run to completion: they need no readiness or liveness. */
  longRunning: boolean;
}

// Reference §4: where each built-in kind keeps its pod spec.
const POD_SPEC_PATHS: Record<string, string> = {
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
const RUN_TO_COMPLETION_KINDS = new Set(['Job', 'CronJob']);
/** Custom resources are searched this deep for pod templates; real ones sit at depth 3 to 6. */
const MAX_SEARCH_DEPTH = 10;

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

export function isBuiltInWorkload(object: KubeObject): boolean {
  return POD_SPEC_PATHS[object.kind] !== undefined && BUILT_IN_GROUPS.has(groupOf(object.apiVersion));
}

/** Every pod spec in a resource: the known path of a built-in kind, or any pod-spec-shaped object in another kind. */
export function findPodSites(resource: Resource): PodSite[] {
  const { object } = resource;
  if (isBuiltInWorkload(object)) {
    const relative = POD_SPEC_PATHS[object.kind]!;
    const spec = valueAt(object, relative);
    return isPodSpecShaped(spec, false) ? [makePodSite(resource, resource.pointer + relative, spec)] : [];
  }
  // Kubernetes' own kinds are known: outside the workloads above they hold no pod spec (a Service,
  // a ConfigMap…), so only custom resources are searched.
  if (isKubernetesGroup(groupOf(object.apiVersion))) return [];
  const sites: PodSite[] = [];
  searchPodSpecs(resource, object.spec, ['spec'], sites);
  return sites;
}

/** The core group, the unqualified built-in groups (apps, batch, policy…) and *.k8s.io. */
function isKubernetesGroup(group: string): boolean {
  return group === '' || !group.includes('.') || group.endsWith('.k8s.io');
}

/** Depth-first search for pod-spec-shaped objects; `path` is the way down from the object, joined into a pointer only on a match. */
function searchPodSpecs(resource: Resource, node: unknown, path: (string | number)[], out: PodSite[]): void {
  if (node === null || typeof node !== 'object' || path.length > MAX_SEARCH_DEPTH) return;
  if (isPodSpecShaped(node, true)) {
    out.push(makePodSite(resource, joinPointer(resource.pointer, ...path), node));
    return;
  }
  if (Array.isArray(node)) {
    for (let index = 0; index < node.length; index++) {
      path.push(index);
      searchPodSpecs(resource, node[index], path, out);
      path.pop();
    }
    return;
  }
  for (const key in node) {
    path.push(key);
    searchPodSpecs(resource, (node as Record<string, unknown>)[key], path, out);
    path.pop();
  }
}

/**
 * A pod spec has a `containers` list. Inside custom resources we also require an image on every
 * container, so operator CRDs that carry partial container overrides (a name and some env) are
 * not mistaken for pods.
 */
function isPodSpecShaped(value: unknown, requireImages: boolean): value is PodSpec {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const containers = (value as { containers?: unknown }).containers;
  if (!Array.isArray(containers)) return false;
  if (!requireImages) return true;
  return (
    containers.length > 0 &&
    containers.every((container) => container !== null && typeof container === 'object' && typeof container.image === 'string')
  );
}

function makePodSite(resource: Resource, pointer: string, spec: PodSpec): PodSite {
  const objectPointer = resource.pointer;
  const isPod = pointer === joinPointer(objectPointer, 'spec') && resource.object.kind === 'Pod';
  const metadataPointer = isPod ? joinPointer(objectPointer, 'metadata') : pointer.replace(/\/spec$/, '/metadata');
  const podMetadata = valueAt(resource.document, metadataPointer) as ObjectMeta | undefined;
  return {
    resource,
    spec,
    pointer,
    podMetadata: podMetadata !== null && typeof podMetadata === 'object' ? podMetadata : undefined,
    containers: containerSites(spec, pointer),
    longRunning: !RUN_TO_COMPLETION_KINDS.has(resource.object.kind) && !['Never', 'OnFailure'].includes(String(spec.restartPolicy)),
  };
}

function containerSites(spec: PodSpec, pointer: string): ContainerSite[] {
  const sites: ContainerSite[] = [];
  const add = (list: unknown, field: string, roleOf: (container: Container) => ContainerRole) => {
    if (!Array.isArray(list)) return;
    list.forEach((container: Container, index) => {
      if (container === null || typeof container !== 'object') return;
      sites.push({ name: String(container.name ?? `#${index}`), role: roleOf(container), container, pointer: joinPointer(pointer, field, index) });
    });
  };
  add(spec.containers, 'containers', () => 'container');
  add(spec.initContainers, 'initContainers', (container) => (container.restartPolicy === 'Always' ? 'sidecar' : 'init'));
  add(spec.ephemeralContainers, 'ephemeralContainers', () => 'ephemeral');
  return sites;
}
