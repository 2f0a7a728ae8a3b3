// The values a rendering of a chart saw, as helm coalesces them: the chart's values.yaml, then each
// values file in the order given, maps merged key by key, a null removing the key; scalars read as
// helm reads them (sigs.k8s.io/yaml: `off` is false). Used only to tell
// which template branches rendered (template-branches.ts); undefined when it cannot be known for
// certain (a file that does not read as a mapping, or --set, whose syntax is helm's own).
import { join } from 'node:path';
import jsYaml from 'js-yaml';
import { KUBECTL_SCHEMA } from '../parse/yaml11-schema.js';
import type { FileCache } from '../read/file-cache.js';

export function renderedValues(chartDirectory: string, valueFiles: readonly string[], files: FileCache): Record<string, unknown> | undefined {
  let merged: Record<string, unknown> = {};
  for (const file of [join(chartDirectory, 'values.yaml'), ...valueFiles]) {
    const text = files.text(file);
    if (text === undefined) {
      if (file === join(chartDirectory, 'values.yaml')) continue; // a chart may have none
      return undefined;
    }
    let layer: unknown;
    try {
      layer = jsYaml.load(text, { schema: KUBECTL_SCHEMA }) ?? {};
    } catch {
      return undefined;
    }
    if (!isMapping(layer)) return undefined;
    merged = coalesce(merged, layer);
  }
  return merged;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function coalesce(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(base)) define(result, key, value);
  for (const [key, value] of Object.entries(over)) {
    // Own keys only, defined rather than assigned: a values file's key may be "__proto__" or "toString".
    const current = Object.hasOwn(result, key) ? result[key] : undefined;
    if (value === null) delete result[key];
    else define(result, key, isMapping(value) && isMapping(current) ? coalesce(current, value) : value);
  }
  return result;
}

function define(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A subchart's values as helm gives them: its own values.yaml under the parent's values for it, and the parent's globals. */
export function subchartValues(directory: string, fromParent: unknown, parentGlobal: unknown, files: FileCache): Record<string, unknown> | undefined {
  const defaults = renderedValues(directory, [], files);
  if (defaults === undefined || (fromParent !== undefined && fromParent !== null && !isMapping(fromParent))) return undefined;
  const merged = coalesce(defaults, isMapping(fromParent) ? fromParent : {});
  if (isMapping(parentGlobal))
    define(merged, 'global', coalesce(Object.hasOwn(merged, 'global') && isMapping(merged.global) ? merged.global : {}, parentGlobal));
  return merged;
}
