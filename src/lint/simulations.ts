// `probe-lint simulate`: each long-running workload of the inputs through a scenario, for the same
// objects the lint sees (charts and kustomizations rendered by the session).
import type { ScenarioPart } from '../model/fleet-scenario.js';
import { simulateWorkload, type SimulatedWorkload } from '../model/fleet.js';
import { findPodSites } from '../model/pod-site.js';
import { describeResource, identityOf } from '../model/resource.js';
import { allDocuments, type LintUnit } from './units.js';

/** Kinds whose Pods serve until stopped and are replaced when they go (a Job's run to completion). */
const SERVING_KINDS = new Set(['Deployment', 'StatefulSet', 'ReplicaSet', 'ReplicationController', 'DaemonSet', 'Pod']);

/** Every serving workload the scenario reaches, in input order; workloads it leaves alone are counted. */
export function simulateUnits(units: Iterable<LintUnit>, parts: readonly ScenarioPart[]): { workloads: SimulatedWorkload[]; untouched: number } {
  const workloads: SimulatedWorkload[] = [];
  let untouched = 0;
  // A chart rendered with several values files holds the same workload more than once: simulated once.
  const seen = new Set<string>();
  for (const unit of units)
    for (const document of allDocuments(unit))
      for (const resource of document.resources) {
        if (!SERVING_KINDS.has(resource.object.kind ?? '')) continue;
        const identity = identityOf(resource.object);
        const key = JSON.stringify([describeResource(identity), resource.origin.file ?? null]);
        if (seen.has(key)) continue;
        seen.add(key);
        for (const site of findPodSites(resource)) {
          if (!site.longRunning) continue;
          const simulation = simulateWorkload(site, parts);
          if (simulation === undefined) {
            untouched++;
            continue;
          }
          const replicas = (resource.object as { spec?: { replicas?: unknown } }).spec?.replicas;
          workloads.push({
            ...simulation,
            identity,
            file: resource.origin.file,
            line: resource.origin.locate?.(resource.pointer)?.line,
            replicas: resource.object.kind === 'DaemonSet' ? null : typeof replicas === 'number' && Number.isInteger(replicas) && replicas >= 0 ? replicas : 1,
          });
        }
      }
  return { workloads, untouched };
}
