// Probe metrics read from each kubelet, through the API server's node proxy
// (GET /api/v1/nodes/NODE/proxy/metrics/probes: RBAC `get` on `nodes/proxy`). The counters are
// cumulative since each probe worker started, so the nodes are read twice, `window` apart, and the
// difference is what happened in between. Only the nodes that run the audited Pods are read.
import { CallGuard, systemClock, type GuardOptions } from './call-guard.js';
import type { KubeClient } from './kube-client.js';
import { metricSamples } from './metrics-text.js';
import { ProbeCounts } from './probe-counts.js';
import type { ProgressListener } from '../model/progress.js';

const PROBE_METRICS = new Set([
  'prober_probe_total',
  'prober_probe_duration_seconds_bucket',
  'prober_probe_duration_seconds_sum',
  'prober_probe_duration_seconds_count',
]);
/** Nodes read at once: a few requests in flight through the API server, not one per node of a large cluster. */
const CONCURRENT_NODES = 4;

export interface KubeletSample {
  counts: ProbeCounts;
  /** Why a node could not be read, node by node. */
  unread: { node: string; reason: string }[];
}

/** One node's probe metrics, in the namespace (or every namespace), added to `counts`. */
export function addProbeMetricsText(text: string, namespace: string | undefined, counts: ProbeCounts): void {
  for (const sample of metricSamples(text, PROBE_METRICS)) {
    if (namespace !== undefined && sample.labels.namespace !== namespace) continue;
    if (sample.name === 'prober_probe_total') counts.addResult(sample.labels, sample.value);
    else if (sample.name === 'prober_probe_duration_seconds_bucket') counts.addBucket(sample.labels, sample.value);
    else counts.addDuration(sample.labels, sample.name === 'prober_probe_duration_seconds_sum' ? 'sumSeconds' : 'count', sample.value);
  }
}

/** Reads every node once; each node behind a guard of its own (its deadline), so one node that is down does not stop the others. */
export async function sampleKubelets(
  client: KubeClient,
  guardOptions: GuardOptions,
  nodes: readonly string[],
  namespace: string | undefined,
  progress?: { listener: ProgressListener | undefined; task: string },
): Promise<KubeletSample> {
  const counts = new ProbeCounts();
  const unread: KubeletSample['unread'] = [];
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < nodes.length) {
      const node = nodes[next++]!;
      const guard = new CallGuard({ ...guardOptions, failureThreshold: 1 }, systemClock, undefined, undefined);
      try {
        const text = await guard.run(`read the probe metrics of node ${node}`, (signal) =>
          client.getText(`/api/v1/nodes/${encodeURIComponent(node)}/proxy/metrics/probes`, signal, 'text/plain;version=0.0.4'),
        );
        addProbeMetricsText(text, namespace, counts);
      } catch (error) {
        unread.push({ node, reason: (error as Error).message });
      }
      done++;
      progress?.listener?.({ task: progress.task, done, total: nodes.length, current: node });
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_NODES, nodes.length) }, worker));
  return { counts, unread };
}
