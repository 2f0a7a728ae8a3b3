import type { Engine, LintResult } from '../engine/engine.js';
import { isKubeObject, type KubeObject, type Resource } from '../model/resource.js';

/** An admitted object as the engine sees it: the object is the document, pointers are into it. */
export function admittedResource(object: KubeObject): Resource {
  return { object, document: object, pointer: '', origin: {} };
}

/** Lints one admitted object; undefined when it is not a Kubernetes object at all. */
export function lintAdmitted(engine: Engine, object: unknown): LintResult | undefined {
  if (!isKubeObject(object)) return undefined;
  return engine.lint([{ resources: [admittedResource(object)] }]);
}
