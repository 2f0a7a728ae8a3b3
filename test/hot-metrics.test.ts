// The review metrics counted in plain numbers (hot-metrics.ts) must read on /metrics exactly as
// prom-client's own Counter and Histogram would, fed the same values: dashboards and alerts keep
// working whichever counts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { LatencyHistogram, PairTally } from '../src/webhook/hot-metrics.js';
import { WebhookMetrics } from '../src/webhook/metrics.js';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const help = 'h';

/** The same observations through prom-client's Histogram and Counter, and through the tally. */
async function bothTexts(observations: readonly { endpoint: string; decision: string; seconds: number }[]): Promise<[string, string]> {
  const own = new Registry();
  const tally = new PairTally();
  tally.counter({ name: 'reviews_total', help, labelNames: ['endpoint', 'decision'], registers: [own] });
  const histogram = new LatencyHistogram(tally, { name: 'latency_seconds', help, labelNames: ['endpoint', 'decision'], buckets: BUCKETS, registry: own });
  const reference = new Registry();
  const counter = new Counter({ name: 'reviews_total', help, labelNames: ['endpoint', 'decision'], registers: [reference] });
  const latency = new Histogram({ name: 'latency_seconds', help, labelNames: ['endpoint', 'decision'], buckets: BUCKETS, registers: [reference] });
  for (const { endpoint, decision, seconds } of observations) {
    histogram.observe(tally.count(endpoint, decision), seconds);
    counter.inc({ endpoint, decision });
    latency.observe({ endpoint, decision }, seconds);
  }
  return [await own.metrics(), await reference.metrics()];
}

describe('review metrics counted in plain numbers', () => {
  it('read as prom-client writes the same counts and latencies, bucket edges included', async () => {
    const [own, reference] = await bothTexts([
      { endpoint: 'validate', decision: 'warned', seconds: 0.01 },
      { endpoint: 'validate', decision: 'warned', seconds: 0.0005 },
      { endpoint: 'validate', decision: 'allowed', seconds: 3 },
      { endpoint: 'mutate', decision: 'patched', seconds: 0.0011 },
      { endpoint: 'validate', decision: 'warned', seconds: 0.02 },
    ]);
    assert.match(own, /^latency_seconds_bucket\{le="0.01",endpoint="validate",decision="warned"\} 2$/m);
    assert.match(own, /^latency_seconds_bucket\{le="\+Inf",endpoint="validate",decision="allowed"\} 1$/m);
    assert.match(own, /^reviews_total\{endpoint="validate",decision="warned"\} 3$/m);
    assert.equal(own, reference);
  });

  it('read the same for any observations (property)', async () => {
    const observation = fc.record({
      endpoint: fc.constantFrom('validate', 'mutate'),
      decision: fc.constantFrom('allowed', 'warned', 'denied', 'error'),
      seconds: fc.oneof(fc.constantFrom(...BUCKETS), fc.double({ min: 0, max: 5, noNaN: true })),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 40 }), async (observations) => {
        const [own, reference] = await bothTexts(observations);
        assert.equal(own, reference);
      }),
      { numRuns: 300 },
    );
  });

  it("count the webhook's reviews and findings where /metrics reads them, and as JSON", async () => {
    const metrics = new WebhookMetrics();
    metrics.recordReview('validate', 'denied', 0.003);
    metrics.recordFinding('timeout-not-below-period', 'warning');
    metrics.recordFinding('timeout-not-below-period', 'warning');
    const text = await metrics.registry.metrics();
    assert.match(text, /^probe_lint_admission_requests_total\{endpoint="validate",decision="denied"\} 1$/m);
    assert.match(text, /^probe_lint_admission_duration_seconds_bucket\{le="0.0025",endpoint="validate",decision="denied"\} 0$/m);
    assert.match(text, /^probe_lint_admission_duration_seconds_bucket\{le="0.005",endpoint="validate",decision="denied"\} 1$/m);
    assert.match(text, /^probe_lint_findings_total\{rule="timeout-not-below-period",severity="warning"\} 2$/m);
    const json = await metrics.registry.getMetricsAsJSON();
    const values = json.find((metric) => metric.name === 'probe_lint_admission_duration_seconds')?.values as {
      metricName?: string;
      labels: object;
      value: number;
    }[];
    const sum = values.find((value) => value.metricName?.endsWith('_sum'));
    assert.deepEqual(sum?.labels, { endpoint: 'validate', decision: 'denied' });
    assert.equal(sum?.value, 0.003);
  });
});
