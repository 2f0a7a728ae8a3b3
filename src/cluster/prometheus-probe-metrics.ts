// Probe metrics read from Prometheus' HTTP API (GET /api/v1/query): the increase of the kubelet's
// probe counters over the window, by Pod, container, probe type and result, and of its duration
// buckets. A Prometheus that scrapes /metrics/probes (kube-prometheus-stack does by default) keeps
// them; the answer is another server's and is read as untrusted: bounded, shape-checked, numbers only.
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ProbeCounts } from './probe-counts.js';
import { boundedRequest } from './bounded-request.js';
import type { CallGuard } from './call-guard.js';

export interface PrometheusOptions {
  /** The server's base URL, e.g. https://prometheus.example:9090 or https://host/prometheus. */
  url: URL;
  /** Sent as `Authorization: Bearer …` (a service account token, say). */
  bearerToken?: string | undefined;
  /** PEM certificates to trust for an https URL, instead of the system's. */
  ca?: string | undefined;
}

/** What one answer may hold: a vector of a million series is far under this. */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

/** A PromQL string literal: the namespace is a DNS label already, quoted all the same. */
function promString(text: string): string {
  return JSON.stringify(text);
}

/** A sample of an instant vector: a float (`value`) or, for a native histogram, `histogram`. */
interface VectorSample {
  metric: Record<string, string>;
  value?: [number, string];
  histogram?: [number, NativeHistogram];
}

/** A native histogram as the HTTP API writes it: buckets as [boundary rule, lower, upper, count] (counts per bucket, not cumulative). */
interface NativeHistogram {
  count: string;
  sum: string;
  buckets?: [number, string, string, string][];
}

/** One instant query; the samples of its vector. */
async function query(options: PrometheusOptions, promql: string, signal: AbortSignal): Promise<VectorSample[]> {
  const url = new URL(`${options.url.href.replace(/\/$/, '')}/api/v1/query`);
  url.searchParams.set('query', promql);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.bearerToken !== undefined) headers.authorization = `Bearer ${options.bearerToken}`;
  if (url.username !== '' || url.password !== '')
    headers.authorization ??= `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  url.username = '';
  url.password = '';
  const requestOptions: RequestOptions & { ca?: string } = { method: 'GET', headers, signal, ...(options.ca === undefined ? {} : { ca: options.ca }) };
  const text = await boundedRequest(
    url.protocol === 'https:' ? httpsRequest : httpRequest,
    url,
    requestOptions,
    undefined,
    MAX_RESPONSE_BYTES,
    () => new Error(`the answer is larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB; refusing to read more`),
  );
  let answer: { status?: unknown; error?: unknown; data?: { resultType?: unknown; result?: unknown } };
  try {
    answer = JSON.parse(text.body) as typeof answer;
  } catch {
    throw new Error(`HTTP ${text.status}, not a Prometheus API answer (not JSON)`);
  }
  if (text.status >= 300 || answer.status !== 'success')
    throw new Error(`HTTP ${text.status}${typeof answer.error === 'string' ? `: ${answer.error.slice(0, 200)}` : ''}`);
  if (answer.data?.resultType !== 'vector' || !Array.isArray(answer.data.result)) throw new Error('the answer is not an instant vector');
  return (answer.data.result as unknown[]).filter((sample): sample is VectorSample => {
    const { metric, value, histogram } = (sample ?? {}) as Partial<VectorSample>;
    return (
      typeof metric === 'object' &&
      metric !== null &&
      Object.values(metric).every((label) => typeof label === 'string') &&
      ((Array.isArray(value) && typeof value[1] === 'string') || (Array.isArray(histogram) && isNativeHistogram(histogram[1])))
    );
  });
}

function isNativeHistogram(value: unknown): value is NativeHistogram {
  const histogram = value as Partial<NativeHistogram> | null | undefined;
  return (
    typeof histogram?.count === 'string' &&
    typeof histogram.sum === 'string' &&
    (histogram.buckets === undefined ||
      (Array.isArray(histogram.buckets) &&
        histogram.buckets.every((bucket) => Array.isArray(bucket) && bucket.length === 4 && bucket.slice(1).every((part) => typeof part === 'string'))))
  );
}

/** Own keys of a sample's labels only (a label may be called `__proto__`). */
function labelsOf(metric: Record<string, string>): Record<string, string> {
  return Object.assign(Object.create(null) as Record<string, string>, metric);
}

/**
 * The probe checks of the window ending now (`range`: a PromQL duration such as 1h or 2h30m), in the
 * namespace or every namespace. Throws when Prometheus cannot be read; `series` is 0 when it holds
 * no probe counters for the scope (the kubelet's /metrics/probes is not scraped, or nothing is probed).
 */
export async function prometheusProbeCounts(
  options: PrometheusOptions,
  guard: CallGuard,
  scope: { namespace: string | undefined; range: string },
): Promise<{ counts: ProbeCounts; series: number }> {
  const selector = scope.namespace === undefined ? '' : `{namespace=${promString(scope.namespace)}}`;
  const counts = new ProbeCounts();
  const results = await guard.run('query Prometheus for probe counts', (signal) =>
    query(options, `sum by (namespace, pod, container, probe_type, result) (increase(prober_probe_total${selector}[${scope.range}]))`, signal),
  );
  for (const sample of results) counts.addResult(labelsOf(sample.metric), Number(sample.value?.[1]));
  const buckets = await guard.run('query Prometheus for probe durations', (signal) =>
    query(options, `sum by (namespace, pod, container, probe_type, le) (increase(prober_probe_duration_seconds_bucket${selector}[${scope.range}]))`, signal),
  );
  for (const sample of buckets) counts.addBucket(labelsOf(sample.metric), Number(sample.value?.[1]));
  // The mean, for kubelets that expose no classic buckets (1.37: NativeHistograms on by default).
  for (const part of ['sum', 'count'] as const) {
    const samples = await guard.run(`query Prometheus for probe duration ${part}s`, (signal) =>
      query(options, `sum by (namespace, pod, container, probe_type) (increase(prober_probe_duration_seconds_${part}${selector}[${scope.range}]))`, signal),
    );
    for (const sample of samples) counts.addDuration(labelsOf(sample.metric), part === 'sum' ? 'sumSeconds' : 'count', Number(sample.value?.[1]));
  }
  // A Prometheus that stores native histograms (1.37 kubelets expose them; Prometheus keeps them with
  // native histograms enabled) has the real buckets, each within 10% of the next: they replace the
  // classic ones of the same series, whose only bucket on such a kubelet is +Inf.
  const native = await guard.run('query Prometheus for native probe duration histograms', (signal) =>
    query(options, `sum by (namespace, pod, container, probe_type) (increase(prober_probe_duration_seconds${selector}[${scope.range}]))`, signal),
  );
  for (const sample of native) {
    const histogram = sample.histogram?.[1];
    if (histogram === undefined) continue;
    counts.replaceLatency(labelsOf(sample.metric), cumulativeBuckets(histogram), { sumSeconds: Number(histogram.sum), count: Number(histogram.count) });
  }
  return { counts, series: results.length };
}

/** A native histogram's buckets as cumulative counts by upper bound, ending at +Inf with the count. */
function cumulativeBuckets(histogram: NativeHistogram): Map<number, number> {
  const buckets = (histogram.buckets ?? [])
    .map(([, , upper, count]) => ({ upper: Number(upper), count: Number(count) }))
    .filter(({ upper, count }) => Number.isFinite(upper) && Number.isFinite(count) && count >= 0)
    .sort((a, b) => a.upper - b.upper);
  const cumulative = new Map<number, number>();
  let total = 0;
  for (const { upper, count } of buckets) cumulative.set(upper, (total += count));
  cumulative.set(Infinity, Math.max(total, Number(histogram.count) || 0));
  return cumulative;
}
