import { Counter, Gauge, type Registry } from 'prom-client';

/** Metrics of the cluster-facts refresher, on the webhook's registry. */
export class ClusterMetrics {
  readonly refreshFailures: Counter<'call'>;
  readonly circuitState: Gauge;
  readonly factsAge: Gauge;
  readonly podsPerNode: Gauge;
  readonly nodes: Gauge;
  readonly refreshSeconds: Gauge;

  constructor(registry: Registry, factsAgeSeconds: () => number | undefined) {
    this.refreshFailures = new Counter({
      name: 'probe_lint_cluster_refresh_failures_total',
      help: 'Calls to the API server that failed or timed out, by call.',
      labelNames: ['call'],
      registers: [registry],
    });
    this.circuitState = new Gauge({
      name: 'probe_lint_circuit_breaker_state',
      help: 'Circuit breaker for API server calls: 0 closed, 1 half-open, 2 open.',
      registers: [registry],
    });
    this.podsPerNode = new Gauge({
      name: 'probe_lint_cluster_pods_per_node',
      help: 'Mean non-terminated pods per node at the last density refresh.',
      registers: [registry],
    });
    this.nodes = new Gauge({ name: 'probe_lint_cluster_nodes', help: 'Nodes at the last density refresh.', registers: [registry] });
    this.refreshSeconds = new Gauge({
      name: 'probe_lint_cluster_refresh_duration_seconds',
      help: 'How long the last successful density refresh took.',
      registers: [registry],
    });
    this.factsAge = new Gauge({
      name: 'probe_lint_cluster_facts_age_seconds',
      help: 'Age of the cluster density facts in use (-1 when none were ever fetched).',
      registers: [registry],
      collect() {
        this.set(factsAgeSeconds() ?? -1);
      },
    });
  }
}
