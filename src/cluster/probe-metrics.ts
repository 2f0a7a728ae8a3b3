// `audit --probe-metrics`: what the kubelet measured of each probe — checks by result and their
// durations — over a window, from the kubelets themselves or from Prometheus, filed under the
// workloads that own the Pods beside the Events' evidence. A source that cannot be read is a
// notice, never the audit's failure: the specs and the Events are still reported.
import { setTimeout as sleep } from 'node:timers/promises';
import { metricsSourceText, type EvidenceMap } from '../engine/runtime-evidence.js';
import type { ProgressListener } from '../model/progress.js';
import { CallGuard, systemClock, type GuardOptions } from './call-guard.js';
import type { KubeClient } from './kube-client.js';
import { sampleKubelets } from './kubelet-probe-metrics.js';
import { addProbeMeasurements, refusedSamplesNotice } from './probe-counts.js';
import { prometheusProbeCounts, type PrometheusOptions } from './prometheus-probe-metrics.js';
import { shownUrl } from './prometheus-url.js';
import type { Owners, PodSummary } from './runtime-evidence.js';

export type ProbeMetricsSource = { kind: 'kubelet'; window: { text: string; ms: number } } | { kind: 'prometheus'; prometheus: PrometheusOptions };

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Where the measurements come from, for notices. */
export function sourceName(source: ProbeMetricsSource): string {
  return source.kind === 'kubelet' ? metricsSourceText('kubelet') : `${metricsSourceText('prometheus')} at ${shownUrl(source.prometheus.url)}`;
}

/**
 * Adds the probe measurements of the scope to `evidence`; returns what could not be read, as
 * notices (empty when everything was).
 */
export async function collectProbeMetrics(
  client: KubeClient,
  guardOptions: GuardOptions,
  source: ProbeMetricsSource,
  scope: { namespace: string | undefined; since: { text: string; ms: number } },
  workloads: { owners: Owners; pods: readonly PodSummary[] },
  evidence: EvidenceMap,
  progress: ProgressListener | undefined,
): Promise<string[]> {
  const notices: string[] = [];
  if (scope.namespace !== undefined && !DNS_LABEL.test(scope.namespace)) return [`"${scope.namespace}" is not a namespace name`];
  if (source.kind === 'prometheus') {
    progress?.({ task: 'querying Prometheus ({count})', done: 0, total: 1, current: shownUrl(source.prometheus.url) });
    const guard = new CallGuard({ ...guardOptions, failureThreshold: 1 }, systemClock, undefined, undefined);
    const { counts, series } = await prometheusProbeCounts(source.prometheus, guard, { namespace: scope.namespace, range: scope.since.text });
    if (series === 0)
      notices.push(
        `it holds no prober_probe_total series${inScope(scope.namespace)} over the last ${scope.since.text}: is each kubelet's /metrics/probes scraped?`,
      );
    addProbeMeasurements(evidence, workloads.owners, counts, 'prometheus', scope.since.text);
    const refused = refusedSamplesNotice(counts.refused);
    if (refused !== undefined) notices.push(refused);
    return notices;
  }
  // The nodes that run the audited Pods, and only those.
  const nodes = [...new Set(workloads.pods.flatMap((pod) => (pod.nodeName === undefined ? [] : [pod.nodeName])))].sort();
  if (nodes.length === 0) return [`no running Pod${inScope(scope.namespace)} is on a node`];
  const first = await sampleKubelets(client, guardOptions, nodes, scope.namespace, { listener: progress, task: 'reading probe metrics of {count} nodes' });
  const unread = new Map(first.unread.map(({ node, reason }) => [node, reason]));
  const readable = nodes.filter((node) => !unread.has(node));
  if (readable.length > 0) {
    const seconds = Math.round(source.window.ms / 1000);
    for (let elapsed = 0; elapsed < seconds; elapsed++) {
      progress?.({ task: 'measuring probes for {count} s', done: elapsed, total: seconds });
      await sleep(1000);
    }
    const second = await sampleKubelets(client, guardOptions, readable, scope.namespace, {
      listener: progress,
      task: 'reading probe metrics of {count} nodes again',
    });
    for (const { node, reason } of second.unread) unread.set(node, reason);
    const filed = addProbeMeasurements(evidence, workloads.owners, second.counts.since(first.counts), 'kubelet', source.window.text);
    const refused = refusedSamplesNotice(first.counts.refused + second.counts.refused);
    if (refused !== undefined) notices.push(refused);
    if (filed === 0 && second.counts.series.size === 0 && unread.size === 0)
      notices.push(`no prober_probe_total series${inScope(scope.namespace)}: no probed container ran there, or the kubelets are older than the metric`);
  }
  for (const [node, reason] of [...unread].slice(0, 5)) notices.push(`cannot read node ${node}: ${reason}`);
  if (unread.size > 5) notices.push(`and ${unread.size - 5} more nodes`);
  return notices;
}

function inScope(namespace: string | undefined): string {
  return namespace === undefined ? '' : ` in namespace ${namespace}`;
}
