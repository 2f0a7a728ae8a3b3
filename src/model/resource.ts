import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { Position } from '../source/line-index.js';
import { joinPointer } from './pointer.js';

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
  /** File path as given by the user, or "-" for stdin; absent for admission and audit. */
  file?: string;
  documentIndex?: number;
  /** Turns a pointer into the document into line:column, where the source has positions. */
  locate?: (pointer: string) => Position;
}

/**
 * One Kubernetes object and where it sits. `pointer` is the object's place inside its document:
 * "" for a plain document, "/items/3" for an item of a List. Findings' pointers are relative to
 * the document, so a fix applies to exactly what the user wrote.
 */
export interface Resource {
  object: KubeObject;
  document: unknown;
  pointer: string;
  origin: ResourceOrigin;
}

export function isKubeObject(value: unknown): value is KubeObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const candidate = value as Record<string, unknown>;
  return typeof candidate.apiVersion === 'string' && typeof candidate.kind === 'string' && candidate.kind !== '';
}

/** The resources of one document: the object itself, or the items of a `List` / `*List`. Anything else is not Kubernetes and yields nothing. */
export function resourcesOfDocument(document: unknown, origin: ResourceOrigin): Resource[] {
  if (!isKubeObject(document)) return [];
  const items = document.items;
  if (document.kind.endsWith('List') && Array.isArray(items)) {
    const resources: Resource[] = [];
    items.forEach((item, index) => {
      if (isKubeObject(item)) resources.push({ object: item, document, pointer: joinPointer('', 'items', index), origin });
    });
    return resources;
  }
  return [{ object: document, document, pointer: '', origin }];
}

/** An object that is its own document (admission, audit): pointers are into the object itself. */
export function standaloneResource(object: KubeObject): Resource {
  return { object, document: object, pointer: '', origin: {} };
}

export function identityOf(object: KubeObject): ResourceIdentity {
  const identity: ResourceIdentity = { apiVersion: object.apiVersion, kind: object.kind };
  const name = object.metadata?.name ?? object.metadata?.generateName;
  if (typeof name === 'string') identity.name = name;
  if (typeof object.metadata?.namespace === 'string') identity.namespace = object.metadata.namespace;
  return identity;
}

/** "Deployment/shop/web" style label for messages and audit output. */
export function describeResource(identity: ResourceIdentity): string {
  return [identity.kind, identity.namespace, identity.name ?? '(unnamed)'].filter((part) => part !== undefined).join('/');
}
