// Which probe the cursor is on: the probe's key and everything under it, found through the `yaml`
// package's node ranges (the engine's parser records only where fields start).
import { isMap, parseAllDocuments, type Node } from 'yaml';
import { findPair, nodeAt, YAML_OPTIONS } from '../fix/yaml-patch.js';
import { effectiveProbe, PROBE_TYPES, type EffectiveProbe } from '../model/effective-probe.js';
import { findPodSites, type ContainerSite } from '../model/pod-site.js';
import { parsePointer } from '../model/pointer.js';
import type { Resource } from '../model/resource.js';
import type { LintDocument } from '../model/document.js';

export interface ProbeAt {
  resource: Resource;
  container: ContainerSite;
  probe: EffectiveProbe;
}

/** The probe whose key or value holds `offset`, in documents read from `text`. */
export function probeAt(text: string, documents: readonly LintDocument[], offset: number): ProbeAt | undefined {
  let parsed: ReturnType<typeof parseAllDocuments> | undefined;
  for (const document of documents) {
    for (const resource of document.resources) {
      for (const site of findPodSites(resource)) {
        for (const container of site.containers) {
          if (container.role !== 'container' && container.role !== 'sidecar') continue;
          for (const type of PROBE_TYPES) {
            const probe = effectiveProbe(container, type);
            if (probe === undefined) continue;
            parsed ??= parseAllDocuments(text, { ...YAML_OPTIONS, uniqueKeys: false });
            if (!Array.isArray(parsed)) return undefined;
            const range = probeRange(parsed[resource.origin.documentIndex ?? 0]?.contents ?? null, container.pointer, probe.field);
            if (range !== undefined && range[0] <= offset && offset <= range[1]) return { resource, container, probe };
          }
        }
      }
    }
  }
  return undefined;
}

/** From the probe's key to the end of its value, as offsets in the text. */
function probeRange(root: Node | null, containerPointer: string, field: string): [number, number] | undefined {
  let container: Node | null;
  try {
    container = nodeAt(root, parsePointer(containerPointer), containerPointer);
  } catch {
    return undefined;
  }
  if (!isMap(container)) return undefined;
  const pair = findPair(container, field);
  const key = pair?.key as Node | undefined;
  const value = pair?.value as Node | undefined | null;
  if (key?.range === undefined || key.range === null) return undefined;
  return [key.range[0], value?.range?.[1] ?? key.range[1]];
}
