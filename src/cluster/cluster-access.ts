// Wiring of the cluster readers from the config: one guard for every call, the density refresher
// and the namespace cache. Used by `serve` (in the background) and by the CLI (one attempt).
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ClusterFacts } from '../engine/cluster-facts.js';
import { clusterFactsFrom, densePodsPerNode, type ProbeLintConfig } from '../engine/config.js';
import { CallGuard, DEFAULT_GUARD, systemClock, type Clock, type GuardOptions } from './call-guard.js';
import { ClusterMetrics } from './cluster-metrics.js';
import { factsFrom, fetchDensity, type DensityThresholds } from './density.js';
import { ClusterFactsRefresher } from './facts-refresher.js';
import { KubeClient, loadKubeConfig } from './kube-client.js';
import { NamespaceCache } from './namespace-cache.js';

export function guardOptions(config: ProbeLintConfig): GuardOptions {
  const guard = config.cluster?.guard ?? {};
  const ms = (seconds: number | undefined, fallback: number) => (seconds === undefined ? fallback : seconds * 1000);
  return {
    deadlineMs: ms(guard.deadlineSeconds, DEFAULT_GUARD.deadlineMs),
    backoffInitialMs: ms(guard.backoffInitialSeconds, DEFAULT_GUARD.backoffInitialMs),
    backoffMaxMs: ms(guard.backoffMaxSeconds, DEFAULT_GUARD.backoffMaxMs),
    failureThreshold: guard.failureThreshold ?? DEFAULT_GUARD.failureThreshold,
    openMs: ms(guard.openSeconds, DEFAULT_GUARD.openMs),
  };
}

export interface ClusterAccess {
  client: KubeClient;
  guard: CallGuard;
  refresher: ClusterFactsRefresher;
  namespaces: NamespaceCache;
  stop(): void;
}

export function createClusterAccess(
  kubeconfig: { file: string | undefined; context: string | undefined },
  config: ProbeLintConfig,
  registry: Registry,
  logger: Logger,
  clock: Clock = systemClock,
): ClusterAccess {
  const client = new KubeClient(loadKubeConfig(kubeconfig.file, kubeconfig.context));
  // The metrics read the refresher's age, and the refresher's guard reports to the metrics.
  const age: { of?: () => number | undefined } = {};
  const metrics = new ClusterMetrics(registry, () => age.of?.());
  const guard = new CallGuard(guardOptions(config), clock, metrics, logger);
  const refresher = new ClusterFactsRefresher(
    client,
    guard,
    clock,
    {
      intervalMs: (config.cluster?.refreshIntervalSeconds ?? 60) * 1000,
      thresholds: densityThresholds(config),
      // Until the cluster answers: the configured density, or unknown.
      fallback: clusterFactsFrom(config, undefined),
    },
    logger,
    metrics,
  );
  age.of = () => refresher.ageSeconds();
  const namespaces = new NamespaceCache(client, guard, clock, logger);
  return {
    client,
    guard,
    refresher,
    namespaces,
    stop() {
      refresher.stop();
      namespaces.stop();
    },
  };
}

/** The CLI's single attempt (lint --kubeconfig, audit): one guarded refresh with the configured deadline, no retry. */
export async function fetchClusterFactsOnce(client: KubeClient, config: ProbeLintConfig): Promise<ClusterFacts> {
  const guard = new CallGuard({ ...guardOptions(config), failureThreshold: 1 }, systemClock, undefined, undefined);
  const snapshot = await guard.run('density', (signal, answered) => fetchDensity(client, signal, systemClock, answered));
  return factsFrom(snapshot, densityThresholds(config));
}

export function densityThresholds(config: ProbeLintConfig): DensityThresholds {
  return {
    densePodsPerNode: densePodsPerNode(config),
    ...(config.cluster?.denseCapacityFraction !== undefined ? { denseCapacityFraction: config.cluster.denseCapacityFraction } : {}),
  };
}
