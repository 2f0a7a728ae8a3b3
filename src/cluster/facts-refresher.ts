// Keeps the cluster's density facts fresh in the background. Admission reads `current()` only: it
// never waits on the API server. While the API server cannot be reached, the last known facts are
// used (their age is exported), or the configured fallback when there never were any.
import type { Logger } from 'pino';
import type { ClusterFacts, ClusterFactsSource } from '../engine/cluster-facts.js';
import { CallNotAllowed, type CallGuard, type Clock } from './call-guard.js';
import { factsFrom, fetchDensity, type DensitySnapshot, type DensityThresholds } from './density.js';
import type { ClusterMetrics } from './cluster-metrics.js';
import type { KubeClient } from './kube-client.js';

export interface RefresherOptions {
  intervalMs: number;
  thresholds: DensityThresholds;
  /** Used until the first successful refresh, and when there is none. */
  fallback: ClusterFacts;
}

export class ClusterFactsRefresher implements ClusterFactsSource {
  private snapshot: DensitySnapshot | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly client: KubeClient,
    readonly guard: CallGuard,
    private readonly clock: Clock,
    private readonly options: RefresherOptions,
    private readonly logger: Logger | undefined,
    private readonly metrics?: ClusterMetrics,
  ) {}

  current(): ClusterFacts {
    return this.snapshot === undefined ? this.options.fallback : factsFrom(this.snapshot, this.options.thresholds);
  }

  get latest(): DensitySnapshot | undefined {
    return this.snapshot;
  }

  /** Seconds since the facts in use were fetched; undefined when none ever were. */
  ageSeconds(): number | undefined {
    return this.snapshot === undefined ? undefined : (this.clock.now() - this.snapshot.fetchedAt) / 1000;
  }

  /** One refresh through the guard; false when it failed or was not allowed (the old facts stay). */
  async refreshNow(): Promise<boolean> {
    try {
      const started = process.hrtime.bigint();
      const snapshot = await this.guard.run('density', (signal, answered) => fetchDensity(this.client, signal, this.clock, answered));
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.snapshot = snapshot;
      this.metrics?.podsPerNode.set(snapshot.meanPodsPerNode);
      this.metrics?.nodes.set(snapshot.nodes);
      this.metrics?.refreshSeconds.set(seconds);
      this.logger?.debug(
        { nodes: snapshot.nodes, pods: snapshot.pods, meanPodsPerNode: snapshot.meanPodsPerNode, listCalls: snapshot.listCalls, seconds },
        'cluster density refreshed',
      );
      return true;
    } catch (error) {
      if (!(error instanceof CallNotAllowed)) this.logger?.debug({ reason: (error as Error).message }, 'cluster density refresh failed');
      return false;
    }
  }

  /** Refreshes now, then on the interval after a success, or when the guard next allows after a failure. */
  start(): void {
    const loop = async () => {
      if (this.stopped) return;
      const ok = await this.refreshNow();
      if (this.stopped) return;
      const delay = ok ? this.options.intervalMs : Math.max(0, this.guard.retryAt - this.clock.now());
      this.timer = setTimeout(() => void loop(), Math.max(delay, 10));
      this.timer.unref();
    };
    void loop();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
