// When the kubelet acts on each container's probes, for the same objects the lint sees: a probe the
// lint calls invalid (an error the API server or the kubelet would not get past) is said so, with the
// lint's own words, never drawn.
import type { Engine } from '../engine/engine.js';
import type { Finding } from '../engine/finding.js';
import { collectRunFacts } from '../engine/run-facts.js';
import { probeField, PROBE_TYPES } from '../model/effective-probe.js';
import { findPodSites } from '../model/pod-site.js';
import { describeResource, identityOf } from '../model/resource.js';
import { timelineOf } from '../model/timeline.js';
import type { ContainerTimeline } from '../report/timeline.js';
import { allDocuments, type LintUnit } from './units.js';

/** The timeline of every probed container of the units (only `container`'s, when given). */
export function containerTimelines(engine: Engine, units: Iterable<LintUnit>, container?: string): ContainerTimeline[] {
  const timelines: ContainerTimeline[] = [];
  for (const unit of units) {
    const documents = allDocuments(unit);
    const run = collectRunFacts(documents);
    for (const document of documents) {
      const errors = engine.lint([document], run).findings.filter((finding) => finding.severity === 'error');
      for (const resource of document.resources) {
        for (const site of findPodSites(resource)) {
          for (const candidate of site.containers) {
            // Plain init and ephemeral containers are never probed.
            if (candidate.role !== 'container' && candidate.role !== 'sidecar') continue;
            if (container !== undefined && candidate.name !== container) continue;
            const invalid = invalidProbes(errors, resource, candidate.pointer);
            const windows = timelineOf(candidate).filter((window) => !invalid.some((probe) => probe.probe === window.probe));
            timelines.push({
              file: resource.origin.file,
              resource: describeResource(identityOf(resource.object)),
              container: candidate.name,
              windows,
              ...(invalid.length > 0 ? { invalid } : {}),
            });
          }
        }
      }
    }
  }
  return timelines;
}

/** The container's probes that carry an error finding, each with the first error's short message. */
function invalidProbes(errors: readonly Finding[], resource: Finding['resource'], containerPointer: string): NonNullable<ContainerTimeline['invalid']> {
  const invalid: NonNullable<ContainerTimeline['invalid']> = [];
  for (const type of PROBE_TYPES) {
    const field = probeField(type);
    const prefix = `${containerPointer}/${field}`;
    const error = errors.find((finding) => finding.resource === resource && (finding.pointer === prefix || finding.pointer.startsWith(`${prefix}/`)));
    if (error !== undefined) invalid.push({ probe: field as `${typeof type}Probe`, rule: error.rule, reason: error.short });
  }
  return invalid;
}
