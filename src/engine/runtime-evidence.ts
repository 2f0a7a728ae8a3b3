// What the kubelet did with a container's probes, as the API server recorded it (Events and Pod
// statuses, read by `probe-lint audit`), summed over a workload's Pods within a window. Rules read it
// like cluster facts; for files and admission there is none, and the runtime rules stay silent.
import type { ResourceIdentity } from '../model/resource.js';

export type ProbeField = 'livenessProbe' | 'readinessProbe' | 'startupProbe';

export interface ContainerEvidence {
  /** The workload's Pods seen now (their statuses) or named by an event in the window. */
  pods: number;
  /** Sum of the container's restartCount over the workload's current Pods (all time, not the window). */
  restartCount: number;
  /** Killing events "failed liveness probe, will be restarted" in the window, with their counts. */
  livenessKills: number;
  /** Killing events "failed startup probe, will be restarted" in the window. */
  startupKills: number;
  /** Unhealthy events per probe in the window (failed and errored checks), with their counts; the ignored ones below included. */
  unhealthy: Record<ProbeField, number>;
  /**
   * Of those, the failures the kubelet said it ignored, below the probe's failureThreshold: a
   * `ProbeFailureIgnored` event, or a note "(1/3, will be ignored)" (kubelets after 1.37). A kubelet
   * that says neither (1.37 and before) reports every failure alike: 0 here says nothing then.
   */
  ignored: Record<ProbeField, number>;
  /** BackOff events (the kubelet holding a restart back: CrashLoopBackOff) in the window. */
  backOff: number;
  /** The latest Unhealthy message per probe, e.g. `Get "http://…": context deadline exceeded`. */
  lastFailure: Partial<Record<ProbeField, string>>;
  /** Per Pod, when liveness last killed this container in it (epoch ms): at most MAX_KILLED_PODS Pods. */
  lastLivenessKill: Map<string, number>;
  /** What the kubelet's probe metrics counted and timed per probe over their window (audit --probe-metrics). */
  probeMetrics: Partial<Record<ProbeField, ProbeMeasurement>>;
}

/** Where probe metrics were read: each node's kubelet through the API server, or a Prometheus server. */
export type MetricsSource = 'kubelet' | 'prometheus';

/** The checks the kubelet counted by result, over a window (prober_probe_total). */
export interface ProbeResults {
  successful: number;
  failed: number;
  unknown: number;
}

/**
 * What the probe metrics count of one probe: prober_probe_total by result, and
 * prober_probe_duration_seconds — which the kubelet records for successful and unknown results
 * only (a failed check, a timeout included, has no duration) — as cumulative bucket counts.
 */
export interface ProbeTally {
  results: ProbeResults;
  /** Upper bound in seconds (Infinity for +Inf) → checks that took at most that long. */
  buckets: Map<number, number>;
  /**
   * The histogram's _sum and _count: the mean. A kubelet of 1.37 (NativeHistograms on by default)
   * exposes no classic buckets for this histogram in the text format — only +Inf — so the mean is
   * what is left to measure latency by.
   */
  duration: { sumSeconds: number; count: number };
}

/** A tally with nothing counted yet. */
export function emptyTally(): ProbeTally {
  return { results: { successful: 0, failed: 0, unknown: 0 }, buckets: new Map(), duration: { sumSeconds: 0, count: 0 } };
}

/** One probe of a workload's container, summed over its Pods. */
export interface ProbeMeasurement extends ProbeTally {
  source: MetricsSource;
  /** The window the counts cover, e.g. "60s" or "1h". */
  window: string;
  /** The workload's Pods whose probe was counted. */
  pods: number;
}

/** Where the measurements came from, as messages say it. */
export function metricsSourceText(source: MetricsSource): string {
  return source === 'kubelet' ? "the kubelets' /metrics/probes" : 'Prometheus';
}

/** What a finding from probe metrics carries in --format json. */
export interface ProbeMetricEvidence {
  source: MetricsSource;
  window: string;
  pods: number;
  probeResults: ProbeResults;
  /**
   * Upper bounds of the buckets the median and the 99th percentile fall in (null: above the largest
   * finite bucket, or no classic buckets), and the mean of the timed checks (null: none timed).
   */
  latencySeconds: { p50: number | null; p99: number | null; mean: number | null };
}

/** Whether the histogram has classic buckets below +Inf holding the timed checks. */
export function hasClassicBuckets(buckets: ReadonlyMap<number, number>): boolean {
  return [...buckets.keys()].some((bound) => bound !== Infinity);
}

/** The mean duration of the timed checks, in seconds; undefined when none was timed. */
export function meanDuration(measurement: Pick<ProbeMeasurement, 'duration'>): number | undefined {
  return measurement.duration.count > 0 ? measurement.duration.sumSeconds / measurement.duration.count : undefined;
}

/** The smallest bucket bound under which at least `quantile` of the timed checks fall; undefined when none were timed or there are no classic buckets. */
export function bucketQuantile(buckets: ReadonlyMap<number, number>, quantile: number): number | undefined {
  if (!hasClassicBuckets(buckets)) return undefined;
  const bounds = [...buckets.keys()].sort((a, b) => a - b);
  const total = bounds.length === 0 ? 0 : Math.max(...bounds.map((bound) => buckets.get(bound)!));
  if (total <= 0) return undefined;
  for (const bound of bounds) if (buckets.get(bound)! >= quantile * total) return bound;
  return Infinity;
}

/** The evidence of a finding from probe metrics. */
export function probeMetricEvidence(measurement: ProbeMeasurement): ProbeMetricEvidence {
  // Three digits: a native histogram's bounds are powers of 2^(1/8) (1.6817928…).
  const finite = (bound: number | undefined) => (bound === undefined || bound === Infinity ? null : Number(bound.toPrecision(3)));
  return {
    source: measurement.source,
    window: measurement.window,
    pods: measurement.pods,
    probeResults: { ...measurement.results },
    latencySeconds: {
      p50: finite(bucketQuantile(measurement.buckets, 0.5)),
      p99: finite(bucketQuantile(measurement.buckets, 0.99)),
      // To the millisecond: sums of floats carry noise past it.
      mean: ((mean) => (mean === undefined ? null : Math.round(mean * 1000) / 1000))(meanDuration(measurement)),
    },
  };
}

/** Pods whose last liveness kill is kept per container: enough to tell replicas killed together, bounded whatever the workload's size. */
export const MAX_KILLED_PODS = 1000;

/** What a runtime finding from Events and Pod statuses carries in --format json: `ignored` only where a kubelet said so. */
export type EventEvidence = Omit<ContainerEvidence, 'lastFailure' | 'lastLivenessKill' | 'probeMetrics' | 'ignored'> & { ignored?: Record<ProbeField, number> };

/** What a runtime finding carries in --format json. */
export type FindingEvidence = EventEvidence | ProbeMetricEvidence;

export interface RuntimeEvidence {
  /** The window, e.g. "1h", as the user gave it. */
  window: string;
  forContainer(identity: ResourceIdentity, container: string): ContainerEvidence | undefined;
}

export function emptyEvidence(): ContainerEvidence {
  return {
    pods: 0,
    restartCount: 0,
    livenessKills: 0,
    startupKills: 0,
    unhealthy: { livenessProbe: 0, readinessProbe: 0, startupProbe: 0 },
    ignored: { livenessProbe: 0, readinessProbe: 0, startupProbe: 0 },
    backOff: 0,
    lastFailure: {},
    lastLivenessKill: new Map(),
    probeMetrics: {},
  };
}

/** Records a liveness kill of the container in `pod` at `atMs`, keeping the latest per Pod. */
export function recordLivenessKill(evidence: ContainerEvidence, pod: string, atMs: number): void {
  const known = evidence.lastLivenessKill.get(pod);
  if (known === undefined && evidence.lastLivenessKill.size >= MAX_KILLED_PODS) return;
  if (known === undefined || atMs > known) evidence.lastLivenessKill.set(pod, atMs);
}

/**
 * The most Pods whose last liveness kills fall within `spanSeconds` of each other: replicas the
 * kubelet restarted together, as one cause failing every replica's check makes it do.
 */
export function podsKilledTogether(evidence: ContainerEvidence, spanSeconds: number): { pods: number; withinSeconds: number } {
  const times = [...evidence.lastLivenessKill.values()].sort((a, b) => a - b);
  let best = { pods: times.length === 0 ? 0 : 1, withinSeconds: 0 };
  let first = 0;
  for (let last = 0; last < times.length; last++) {
    while (times[last]! - times[first]! > spanSeconds * 1000) first++;
    const pods = last - first + 1;
    if (pods > best.pods) best = { pods, withinSeconds: Math.round((times[last]! - times[first]!) / 1000) };
  }
  return best;
}

/** The workload evidence is filed under (a ResourceIdentity without its apiVersion). */
export interface WorkloadName {
  kind: string;
  namespace?: string | undefined;
  name?: string | undefined;
}

/** The key evidence is filed under: kind/namespace/name and container. */
export function evidenceKey(identity: WorkloadName, container: string): string {
  // Stryker disable next-line StringLiteral: what stands for a missing namespace or name only needs to be the same wherever the key is built.
  return `${identity.kind}/${identity.namespace ?? ''}/${identity.name ?? ''}\u0000${container}`;
}

/** Evidence held in a map by evidenceKey: what audit collects, and what rule fixtures give. */
export class EvidenceMap implements RuntimeEvidence {
  readonly entries = new Map<string, ContainerEvidence>();
  constructor(readonly window: string) {}

  forContainer(identity: ResourceIdentity, container: string): ContainerEvidence | undefined {
    return this.entries.get(evidenceKey(identity, container));
  }

  /** The entry for a container, created empty on first use. */
  entry(identity: WorkloadName, container: string): ContainerEvidence {
    const key = evidenceKey(identity, container);
    let found = this.entries.get(key);
    if (found === undefined) this.entries.set(key, (found = emptyEvidence()));
    return found;
  }
}

/** The evidence a runtime finding carries (everything but the quoted messages). */
export function findingEvidence(evidence: ContainerEvidence): EventEvidence {
  const { lastFailure: _lastFailure, lastLivenessKill: _lastLivenessKill, probeMetrics: _probeMetrics, ignored, ...counts } = evidence;
  const saidIgnored = Object.values(ignored).some((count) => count > 0);
  return { ...counts, unhealthy: { ...counts.unhealthy }, ...(saidIgnored ? { ignored: { ...ignored } } : {}) };
}

/** Rules that read runtime evidence have no CEL form: the evidence lives in the cluster, not in the object. */
export const RUNTIME_POLICY = {
  notExpressible: 'Runtime evidence (Events, Pod statuses, probe metrics) is not part of the object admitted: probe-lint audit reads it from the cluster.',
} as const;
