// What `audit` lints, read from a cluster: the workloads, the density (unless given), and the
// runtime evidence of a window (Events, restart counts, the kubelet's probe measurements). Every call
// goes through one guard with one attempt; what cannot be read beyond the workloads is a warning and
// the audit goes on without it.
import type { ClusterFacts } from '../engine/cluster-facts.js';
import { clusterFactsFrom, type ProbeLintConfig } from '../engine/config.js';
import { EvidenceMap } from '../engine/runtime-evidence.js';
import type { ProgressListener } from '../model/progress.js';
import type { KubeObject } from '../model/resource.js';
import { CallGuard, systemClock } from './call-guard.js';
import { fetchClusterFactsOnce, guardOptions } from './cluster-access.js';
import type { KubeClient } from './kube-client.js';
import { collectProbeMetrics, sourceName, type ProbeMetricsSource } from './probe-metrics.js';
import { collectEvidence, Owners } from './runtime-evidence.js';
import { listWorkloads, type OwnedObjects } from './workloads.js';

export interface AuditScope {
  /** undefined: every namespace. */
  namespace: string | undefined;
  /** The runtime evidence window (--since); undefined: the specs only. */
  since: { text: string; ms: number } | undefined;
  /** --pods-per-node: the density, not read from the cluster. */
  podsPerNode: number | undefined;
  probeMetrics: ProbeMetricsSource | undefined;
}

export interface AuditInputs {
  objects: KubeObject[];
  cluster: ClusterFacts;
  /** What the kubelet did and measured, when a window was asked for and could be read. */
  evidence: EvidenceMap | undefined;
  /** The guard the reads went through, for the writes that follow (--apply-reports). */
  guard: CallGuard;
}

/** The workloads could not be listed: there is nothing to audit. */
export class WorkloadsUnreadable extends Error {}

/** Reads the scope's inputs; `warn` is told what is left out and why. */
export async function readAuditInputs(
  client: KubeClient,
  config: ProbeLintConfig,
  scope: AuditScope,
  progress: ProgressListener | undefined,
  warn: (message: string) => void,
): Promise<AuditInputs> {
  const guard = new CallGuard({ ...guardOptions(config), failureThreshold: 1 }, systemClock, undefined, undefined);
  const owned: OwnedObjects | undefined = scope.since === undefined ? undefined : { pods: [], jobs: [] };
  let objects: KubeObject[];
  try {
    objects = await listWorkloads(client, guard, scope.namespace, owned, progress);
  } catch (error) {
    throw new WorkloadsUnreadable(`cannot read the workloads from ${client.config.getCurrentCluster()?.server ?? 'the cluster'}: ${(error as Error).message}`);
  }
  const cluster = await readDensity(client, config, scope.podsPerNode, warn);
  // The Pods' owners are resolved once, for the Events and the probe metrics alike.
  const workloads = owned === undefined ? undefined : { owners: new Owners(objects, owned.jobs, owned.pods), pods: owned.pods };
  let evidence: EvidenceMap | undefined;
  if (scope.since !== undefined && workloads !== undefined) {
    try {
      progress?.({ task: 'reading the Events ({count})', done: 0, total: 1, current: `since ${scope.since.text}` });
      evidence = await collectEvidence(client, guard, { namespace: scope.namespace, since: scope.since, now: Date.now() }, workloads);
    } catch (error) {
      warn(`cannot read runtime evidence (Events): ${(error as Error).message}; auditing the specs only`);
    }
    if (scope.probeMetrics !== undefined) {
      evidence ??= new EvidenceMap(scope.since.text);
      const source = scope.probeMetrics;
      try {
        const notices = await collectProbeMetrics(
          client,
          guardOptions(config),
          source,
          { namespace: scope.namespace, since: scope.since },
          workloads,
          evidence,
          progress,
        );
        for (const notice of notices) warn(`probe metrics from ${sourceName(source)}: ${notice}`);
      } catch (error) {
        warn(`cannot read probe metrics from ${sourceName(source)}: ${(error as Error).message}; auditing without them`);
      }
    }
  }
  return { objects, cluster, evidence, guard };
}

/** Density from the same cluster (one attempt), unless given on the command line. */
async function readDensity(
  client: KubeClient,
  config: ProbeLintConfig,
  podsPerNode: number | undefined,
  warn: (message: string) => void,
): Promise<ClusterFacts> {
  if (podsPerNode !== undefined) return clusterFactsFrom(config, podsPerNode);
  try {
    return await fetchClusterFactsOnce(client, config);
  } catch (error) {
    warn(`cannot read cluster density: ${(error as Error).message}; auditing without it`);
    return clusterFactsFrom(config, undefined);
  }
}
