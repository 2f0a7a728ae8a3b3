import { collectDefaultMetrics, Counter, Registry } from 'prom-client';
import { LatencyHistogram, PairTally } from './hot-metrics.js';

/**
 * The webhook's Prometheus metrics, on a registry of its own (one per server). Every label has a
 * bounded set of values. What every review records (its count, latency and findings) is counted in
 * plain numbers and read when /metrics is scraped (hot-metrics.ts); the rest goes to prom-client
 * as it happens.
 */
export class WebhookMetrics {
  readonly registry = new Registry();
  private readonly reviews = new PairTally();
  private readonly findingCounts = new PairTally();
  readonly requests = this.reviews.counter({
    name: 'probe_lint_admission_requests_total',
    help: 'Admission reviews answered, by endpoint and decision.',
    labelNames: ['endpoint', 'decision'],
    registers: [this.registry],
  });
  readonly latency = new LatencyHistogram(this.reviews, {
    name: 'probe_lint_admission_duration_seconds',
    help: 'Time to answer an admission review, by endpoint and decision.',
    labelNames: ['endpoint', 'decision'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registry: this.registry,
  });
  readonly findings = this.findingCounts.counter({
    name: 'probe_lint_findings_total',
    help: 'Findings in admitted objects, by rule and severity.',
    labelNames: ['rule', 'severity'],
    registers: [this.registry],
  });
  readonly suppressed = new Counter({
    name: 'probe_lint_suppressed_findings_total',
    help: 'Findings hidden by a probe-lint.dev/ignore annotation on the object, by rule.',
    labelNames: ['rule'] as const,
    registers: [this.registry],
  });
  readonly patches = new Counter({
    name: 'probe_lint_patches_applied_total',
    help: 'Fixes sent in mutating responses (dry runs excluded), by rule.',
    labelNames: ['rule'] as const,
    registers: [this.registry],
  });
  readonly patchConflicts = new Counter({
    name: 'probe_lint_patch_conflicts_total',
    help: 'Fixes left out of a mutating response because an earlier fix touched the same place, by rule.',
    labelNames: ['rule'] as const,
    registers: [this.registry],
  });
  readonly ruleFailures = new Counter({
    name: 'probe_lint_rule_failures_total',
    help: 'Rules that threw on an admitted object; the object was allowed for that rule (fail-open).',
    labelNames: ['rule'] as const,
    registers: [this.registry],
  });
  readonly unreadable = new Counter({
    name: 'probe_lint_unreadable_objects_total',
    help: 'Objects probe-lint could not check (too many containers, too deep, or an internal error), by endpoint.',
    labelNames: ['endpoint'] as const,
    registers: [this.registry],
  });
  readonly stoppedReviews = new Counter({
    name: 'probe_lint_reviews_stopped_total',
    help: 'Reviews whose lint stopped at its work budget and answered with the findings found before it, by endpoint.',
    labelNames: ['endpoint'] as const,
    registers: [this.registry],
  });
  readonly badRequests = new Counter({
    name: 'probe_lint_bad_requests_total',
    help: 'Requests answered with a 4xx, by route (unknown paths are "other") and status.',
    labelNames: ['endpoint', 'status'] as const,
    registers: [this.registry],
  });
  readonly logLinesDropped = new Counter({
    name: 'probe_lint_log_lines_dropped_total',
    help: 'Log lines dropped because stdout did not take them as fast as they came (see the warning lines).',
    registers: [this.registry],
  });
  readonly tlsReloads = new Counter({
    name: 'probe_lint_tls_reloads_total',
    help: 'Certificate reloads from disk, by result.',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  /** For the logger, which is told of each line it drops (logger.ts). */
  readonly countDroppedLogLine = (): void => this.logLinesDropped.inc();

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'probe_lint_' });
  }

  /** Counts one answered review and its latency: this runs for every review. */
  recordReview(endpoint: string, decision: string, seconds: number): void {
    this.latency.observe(this.reviews.count(endpoint, decision), seconds);
  }

  recordFinding(rule: string, severity: string): void {
    this.findingCounts.count(rule, severity);
  }
}
