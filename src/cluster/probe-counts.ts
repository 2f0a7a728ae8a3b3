// What the kubelet's probe metrics say per Pod, container and probe — checks by result
// (prober_probe_total) and timed checks by duration bucket (prober_probe_duration_seconds) — and
// how those become a workload's evidence. Both sources (each kubelet's /metrics/probes sampled
// twice, or Prometheus' increase() over a window) produce these counts.
import {
  emptyTally,
  type EvidenceMap,
  type MetricsSource,
  type ProbeField,
  type ProbeMeasurement,
  type ProbeResults,
  type ProbeTally,
} from '../engine/runtime-evidence.js';
import type { Owners } from './runtime-evidence.js';
import { bucketBound } from './metrics-text.js';

/** The kubelet's probe_type label → the probe's field. */
const PROBE_OF_TYPE: Record<string, ProbeField> = { Liveness: 'livenessProbe', Readiness: 'readinessProbe', Startup: 'startupProbe' };
const RESULTS = new Set<keyof ProbeResults>(['successful', 'failed', 'unknown']);

/** Series kept at most: far above the probes of the largest clusters (150,000 Pods × 3 probes), bounded whatever a source sends. */
export const MAX_PROBE_SERIES = 1_000_000;

/** One Pod's probe, as one source counted it. */
export interface PodProbeCounts extends ProbeTally {
  namespace: string;
  pod: string;
  container: string;
  probe: ProbeField;
}

/** The labels a probe series is known by; undefined when it is not a probe of a known type. */
export interface ProbeLabels {
  namespace?: string | undefined;
  pod?: string | undefined;
  container?: string | undefined;
  probe_type?: string | undefined;
}

/**
 * The largest sample taken: 2^53 checks is 285 million years of a probe every second. A source that
 * sends more (1e308, +Inf, NaN) is not counting probes, and its sums would print as Infinity or NaN%.
 */
const MAX_SAMPLE = Number.MAX_SAFE_INTEGER;

/** What the notices say of refused samples, or undefined when there were none. */
export function refusedSamplesNotice(refused: number): string | undefined {
  return refused === 0
    ? undefined
    : `${refused} ${refused === 1 ? 'sample was' : 'samples were'} left out: not a count (negative, not a finite number, or past 2^53)`;
}

export class ProbeCounts {
  readonly series = new Map<string, PodProbeCounts>();
  /** Samples refused as no count (negative, not finite, past MAX_SAMPLE): said once in a notice. */
  refused = 0;

  /** The counts of one Pod's probe, created empty on first use; undefined for labels that name no probe. */
  entry(labels: ProbeLabels): PodProbeCounts | undefined {
    const { namespace, pod, container, probe_type: type } = labels;
    if (namespace === undefined || pod === undefined || container === undefined || type === undefined || !Object.hasOwn(PROBE_OF_TYPE, type)) return undefined;
    const probe = PROBE_OF_TYPE[type]!;
    const key = `${namespace}\u0000${pod}\u0000${container}\u0000${probe}`;
    let found = this.series.get(key);
    if (found === undefined) {
      if (this.series.size >= MAX_PROBE_SERIES) throw new Error(`more than ${MAX_PROBE_SERIES} probe series: refusing to read more`);
      this.series.set(key, (found = { namespace, pod, container, probe, ...emptyTally() }));
    }
    return found;
  }

  /** Adds checks of one result (a label value the kubelet writes: successful, failed, unknown). */
  addResult(labels: ProbeLabels & { result?: string | undefined }, count: number): void {
    const result = labels.result as keyof ProbeResults | undefined;
    if (result === undefined || !RESULTS.has(result) || !this.isCount(count)) return;
    const entry = this.entry(labels);
    if (entry !== undefined) entry.results[result] += count;
  }

  /** Adds timed checks at or under one bucket bound (`le`: "0.5", "+Inf"). */
  addBucket(labels: ProbeLabels & { le?: string | undefined }, count: number): void {
    if (labels.le === undefined || !this.isCount(count)) return;
    const bound = bucketBound(labels.le);
    if (Number.isNaN(bound)) return;
    const entry = this.entry(labels);
    if (entry !== undefined) entry.buckets.set(bound, (entry.buckets.get(bound) ?? 0) + count);
  }

  /** Adds to the duration histogram's _sum (seconds) or _count. */
  addDuration(labels: ProbeLabels, part: 'sumSeconds' | 'count', value: number): void {
    if (!this.isCount(value)) return;
    const entry = this.entry(labels);
    if (entry !== undefined) entry.duration[part] += value;
  }

  /** Replaces one Pod's probe latency (its buckets, sum and count) with a better reading of it: a native histogram's. */
  replaceLatency(labels: ProbeLabels, buckets: Map<number, number>, duration: PodProbeCounts['duration']): void {
    if (![...buckets.values(), duration.sumSeconds, duration.count].every((value) => this.isCount(value))) return;
    const entry = this.entry(labels);
    if (entry === undefined) return;
    entry.buckets = buckets;
    entry.duration = duration;
  }

  private isCount(value: number): boolean {
    const count = Number.isFinite(value) && value >= 0 && value <= MAX_SAMPLE;
    if (!count) this.refused++;
    return count;
  }

  /**
   * What happened between `before` and this later sample: the counters' increase per series. A series
   * new since `before` counts from zero; a counter that went down was reset (its Pod's probe worker
   * started again) and counts from zero too.
   */
  since(before: ProbeCounts): ProbeCounts {
    const increase = (now: number, then: number | undefined) => (then === undefined || now < then ? now : now - then);
    const window = new ProbeCounts();
    for (const [key, after] of this.series) {
      const earlier = before.series.get(key);
      window.series.set(key, {
        ...after,
        results: {
          successful: increase(after.results.successful, earlier?.results.successful),
          failed: increase(after.results.failed, earlier?.results.failed),
          unknown: increase(after.results.unknown, earlier?.results.unknown),
        },
        buckets: new Map([...after.buckets].map(([bound, count]) => [bound, increase(count, earlier?.buckets.get(bound))])),
        // A reset count resets the sum with it.
        duration:
          earlier === undefined || after.duration.count < earlier.duration.count
            ? { ...after.duration }
            : { sumSeconds: Math.max(0, after.duration.sumSeconds - earlier.duration.sumSeconds), count: after.duration.count - earlier.duration.count },
      });
    }
    return window;
  }
}

/**
 * Files each Pod's probe counts under the audited workload that owns the Pod, summed over its
 * Pods; counts of Pods no audited workload owns are left out. Returns how many series were filed.
 */
export function addProbeMeasurements(evidence: EvidenceMap, owners: Owners, counts: ProbeCounts, source: MetricsSource, window: string): number {
  let filed = 0;
  for (const series of counts.series.values()) {
    const workload = owners.of(series.namespace, series.pod);
    if (workload === undefined) continue;
    const entry = evidence.entry(workload, series.container);
    const measured: ProbeMeasurement = (entry.probeMetrics[series.probe] ??= { source, window, pods: 0, ...emptyTally() });
    measured.pods++;
    measured.results.successful += Math.round(series.results.successful);
    measured.results.failed += Math.round(series.results.failed);
    measured.results.unknown += Math.round(series.results.unknown);
    for (const [bound, count] of series.buckets) measured.buckets.set(bound, (measured.buckets.get(bound) ?? 0) + Math.round(count));
    // Not rounded: Prometheus extrapolates sum and count alike, and their ratio is the mean.
    measured.duration.sumSeconds += series.duration.sumSeconds;
    measured.duration.count += series.duration.count;
    filed++;
  }
  return filed;
}
