import type { Engine, LintResult } from '../engine/engine.js';
import { isKubeObject, standaloneResource } from '../model/resource.js';

/** Lints one admitted object; undefined when it is not a Kubernetes object at all. */
export function lintAdmitted(engine: Engine, object: unknown): LintResult | undefined {
  if (!isKubeObject(object)) return undefined;
  return engine.lint([{ resources: [standaloneResource(object)] }]);
}
