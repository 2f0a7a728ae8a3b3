import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { joinPointer } from './pointer.js';
import type { Position } from './position.js';

/** A decoded Kubernetes object: only what probe-lint relies on is typed. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

export interface ResourceIdentity {
  apiVersion: string;
  kind: string;
  name?: string;
  namespace?: string;
}

/** Where a resource came from: a file's document, or an admission request, or a live cluster. */
export interface ResourceOrigin {
  /** File path as given by the user, or "-" for stdin; for rendered input the template or file that declared the object; absent for admission and audit. */
  file?: string;
  documentIndex?: number;
  /** Turns a pointer into the document into line:column in `file`, where the source has positions. */
  locate?: (pointer: string) => Position | undefined;
  /** Set when the object came out of `helm template` or `kustomize build`. */
  rendered?: RenderedPlace;
}

/** Where a rendered object sits in the rendering, and how a pointer maps back to what the user edits. */
export interface RenderedPlace {
  from: 'helm' | 'kustomize';
  /** The chart or kustomization directory; undefined for a rendered stream on stdin. */
  root: string | undefined;
  /** The values file that produced the rendering, besides the chart's values.yaml. */
  values: string | undefined;
  /** Line and column in the rendered output. */
  locateRendered: (pointer: string) => Position;
  /** For a template inside a packaged subchart (`file` is then the archive): its path in the archive. */
  inside?: string;
  /** The file that holds what a pointer names, when it is another file than `file` (a kustomize patch, a named template). */
  editedIn?: (pointer: string) => { file: string; position: Position | undefined } | undefined;
}

/**
 * One Kubernetes object and where it sits. `pointer` is the object's place inside its document:
 * "" for a plain document, "/items/3" for an item of a List, "/objects/0" for an object of an
 * OpenShift Template. Findings' pointers are relative to the document, so a fix applies to exactly
 * what the user wrote.
 */
export interface Resource {
  object: KubeObject;
  document: unknown;
  pointer: string;
  origin: ResourceOrigin;
  /** Set for the objects of an OpenShift Template: `${PARAM}` values are filled in when it is processed. */
  parameterized?: true;
}

export function isKubeObject(value: unknown): value is KubeObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const candidate = value as Record<string, unknown>;
  return typeof candidate.apiVersion === 'string' && typeof candidate.kind === 'string' && candidate.kind !== '';
}

/**
 * Objects that carry whole objects (apiVersion and kind), and where: kubectl applies what they
 * hold, or a controller does. Their contents are linted as objects of their own.
 */
const WRAPPERS: readonly { group: string; kind: string; path: readonly string[]; many: boolean; parameterized?: true }[] = [
  // OpenShift templates: `oc process` fills in ${PARAM} and creates `objects`.
  { group: 'template.openshift.io', kind: 'Template', path: ['objects'], many: true, parameterized: true },
  { group: '', kind: 'Template', path: ['objects'], many: true, parameterized: true },
  // Open Cluster Management applies `spec.workload.manifests` on managed clusters.
  { group: 'work.open-cluster-management.io', kind: 'ManifestWork', path: ['spec', 'workload', 'manifests'], many: true },
  // Crossplane's provider-kubernetes applies `spec.forProvider.manifest`.
  { group: 'kubernetes.crossplane.io', kind: 'Object', path: ['spec', 'forProvider', 'manifest'], many: false },
  // A captured admission review: the object under review.
  { group: 'admission.k8s.io', kind: 'AdmissionReview', path: ['request', 'object'], many: false },
];

/** Lists inside lists, and wrappers inside wrappers, are followed this deep. */
const MAX_NESTING = 8;

/**
 * The resources of one document. Like kubectl (cli-runtime's FlattenListVisitor, and unstructured
 * decoding, which treats any object with an `items` list as a list), the items of lists are
 * flattened, lists inside lists too; the contents of well-known wrappers are expanded the same way.
 * Anything that is not a Kubernetes object yields nothing.
 */
export function resourcesOfDocument(document: unknown, origin: ResourceOrigin): Resource[] {
  const resources: Resource[] = [];
  collect(document, document, '', origin, false, 0, resources);
  return resources;
}

function collect(value: unknown, document: unknown, pointer: string, origin: ResourceOrigin, parameterized: boolean, depth: number, out: Resource[]): void {
  if (!isKubeObject(value)) return;
  if (depth < MAX_NESTING) {
    if (Array.isArray(value.items)) {
      value.items.forEach((item, index) => collect(item, document, joinPointer(pointer, 'items', index), origin, parameterized, depth + 1, out));
      return;
    }
    const wrapper = wrapperOf(value);
    if (wrapper !== undefined) {
      const inner = valueAtPath(value, wrapper.path);
      const innerPointer = joinPointer(pointer, ...wrapper.path);
      const innerParameterized = parameterized || wrapper.parameterized === true;
      if (wrapper.many && Array.isArray(inner)) {
        inner.forEach((item, index) => collect(item, document, joinPointer(innerPointer, index), origin, innerParameterized, depth + 1, out));
      } else if (!wrapper.many) {
        collect(inner, document, innerPointer, origin, innerParameterized, depth + 1, out);
      }
      return;
    }
  }
  const resource: Resource = { object: value, document, pointer, origin };
  if (parameterized) resource.parameterized = true;
  out.push(resource);
}

function wrapperOf(object: KubeObject): (typeof WRAPPERS)[number] | undefined {
  const group = groupOf(object.apiVersion);
  return WRAPPERS.find((wrapper) => wrapper.kind === object.kind && wrapper.group === group);
}

function valueAtPath(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const key of path) {
    // Stryker disable next-line ConditionalExpression: a key of a string or a number reads undefined too.
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The API group of an apiVersion: "" for the core group ("v1"). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

/** An object that is its own document (admission, audit): pointers are into the object itself. */
export function standaloneResource(object: KubeObject): Resource {
  return { object, document: object, pointer: '', origin: {} };
}

export function identityOf(object: KubeObject): ResourceIdentity {
  const identity: ResourceIdentity = { apiVersion: object.apiVersion, kind: object.kind };
  const metadata = object.metadata as Record<string, unknown> | undefined | null;
  const name = typeof metadata?.name === 'string' ? metadata.name : metadata?.generateName;
  if (typeof name === 'string') identity.name = name;
  if (typeof metadata?.namespace === 'string') identity.namespace = metadata.namespace;
  return identity;
}

/** The object's metadata name as written, '' when it has none (an origin mapping compares names). */
export function nameOf(object: { metadata?: { name?: unknown } }): string {
  const name = object.metadata?.name;
  return typeof name === 'string' ? name : '';
}

/** "Deployment/shop/web" style label for messages and audit output. */
export function describeResource(identity: ResourceIdentity): string {
  return [identity.kind, identity.namespace, identity.name ?? '(unnamed)'].filter((part) => part !== undefined).join('/');
}
