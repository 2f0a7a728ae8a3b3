import {
  bucketQuantile,
  counted,
  defineRule,
  failureConsequence,
  joinPointer,
  meanDuration,
  metricsSourceText,
  PROBED_CONTAINERS,
  probeMetricEvidence,
  RUNTIME_POLICY,
  type PatchOperation,
  type ProbeMeasurement,
} from '../../src/rule-api.js';

/** "99% at most 2.5 s", or "more than 1% over 10 s" for the +Inf bucket. */
function shareText(bound: number, largestFinite: number, within: string, over: string): string {
  return bound === Infinity ? `${over} over ${seconds(largestFinite)}` : `${within} at most ${seconds(bound)}`;
}

/** "2.5 s", "1.68 s": a bucket bound to three digits (a native histogram's bounds are powers of 2^(1/8)). */
function seconds(bound: number): string {
  return `${Number(bound.toPrecision(3))} s`;
}

/** A timeout past twice the latency, so that the next audit no longer finds the latency reaching half of it. */
function timeoutFor(latency: number, timeout: number): number {
  return Math.max(timeout + 1, Math.floor(2 * latency) + 1);
}

/**
 * How slow the checks were: the 99th percentile's bucket where the kubelet exposes classic buckets,
 * else the mean (a 1.37 kubelet, NativeHistograms on, exposes only +Inf in the text format); undefined
 * when nothing was timed or the latency stays under half the timeout.
 */
function slowness(measured: ProbeMeasurement, timeout: number) {
  const p99 = bucketQuantile(measured.buckets, 0.99);
  if (p99 !== undefined) {
    const largestFinite = Math.max(...[...measured.buckets.keys()].filter((bound) => bound !== Infinity));
    // Above the largest bucket the latency is only known to exceed it.
    const known = p99 === Infinity ? largestFinite : p99;
    if (known < timeout / 2) return undefined;
    return {
      messageId: 'slow' as const,
      suggested: p99 === Infinity ? undefined : timeoutFor(p99, timeout),
      data: {
        p50: shareText(bucketQuantile(measured.buckets, 0.5)!, largestFinite, 'half took', 'half took'),
        p99: shareText(p99, largestFinite, '99%', 'more than 1%'),
        p99short: p99 === Infinity ? `more than 1% of checks over ${seconds(largestFinite)}` : `99% of checks took up to ${seconds(p99)}`,
      },
    };
  }
  const mean = meanDuration(measured);
  if (mean === undefined || mean < timeout / 2) return undefined;
  return { messageId: 'slowMean' as const, suggested: timeoutFor(mean, timeout), data: { mean: `${Number(mean.toFixed(2))} s` } };
}

export default defineRule({
  meta: {
    id: 'runtime-probe-slow',
    severity: 'warning',
    summary: "the kubelet measured the probe's checks close to or above its timeoutSeconds (audit --probe-metrics)",
    remediation:
      'Raise timeoutSeconds to cover the measured latency with margin (the suggested patch: more than twice the 99th percentile, or the mean), or make the checked endpoint answer faster.',
    scope: PROBED_CONTAINERS,
    readsEvidence: true,
    fix: 'suggestion',
    policy: RUNTIME_POLICY,
    messages: {
      slow: {
        short: '{field} of container {container}: {p99short} against a {timeout} s timeout; {action}',
        long:
          'the kubelet timed {timed} of the {field} of container {container} in the last {window} across {pods} (from {source}): {p50} and {p99} ' +
          '(upper bounds of the prober_probe_duration_seconds buckets they fell in), against timeoutSeconds {timeout} s. A check still running at its timeout fails: ' +
          'when the endpoint slows a little more, under load or a pause, checks time out and {consequence}.{failed} {advice}{period}',
      },
      slowMean: {
        short: '{field} of container {container}: checks took {mean} on average against a {timeout} s timeout; {action}',
        long:
          'the kubelet timed {timed} of the {field} of container {container} in the last {window} across {pods} (from {source}): they took {mean} on average ' +
          "(prober_probe_duration_seconds' sum ÷ count: this kubelet exposes no classic buckets for it, as 1.37 does with NativeHistograms on, so the slowest took longer still), " +
          'against timeoutSeconds {timeout} s. A check still running at its timeout fails: when the endpoint slows a little more, under load or a pause, checks time out and {consequence}.{failed} {advice}{period}',
      },
    },
  },
  checkContainer({ container, evidence, timedProbes, report }) {
    if (evidence === undefined) return;
    for (const probe of timedProbes) {
      const measured = evidence.probeMetrics[probe.field as keyof typeof evidence.probeMetrics];
      // Checks the kubelet timed (successful and unknown results); failures have no duration.
      const slow = measured === undefined ? undefined : slowness(measured, probe.timeoutSeconds);
      if (measured === undefined || slow === undefined) continue;
      const { suggested } = slow;
      const fix: PatchOperation[] | undefined =
        suggested === undefined ? undefined : [{ op: 'add', path: joinPointer(probe.pointer, 'timeoutSeconds'), value: suggested }];
      const timed = measured.results.successful + measured.results.unknown;
      report({
        messageId: slow.messageId,
        data: {
          ...slow.data,
          field: probe.field,
          container: container.name,
          timed: counted(timed, 'check'),
          window: measured.window,
          pods: counted(measured.pods, 'Pod'),
          source: metricsSourceText(measured.source),
          timeout: probe.timeoutSeconds,
          consequence: failureConsequence(probe, container.restartPolicy),
          failed:
            measured.results.failed === 0
              ? ''
              : ` In the same window ${counted(measured.results.failed, 'check')} failed (a timeout is a failure, and the kubelet records no duration for it).`,
          action: suggested === undefined ? 'find why the endpoint is this slow' : `raise timeoutSeconds to ${suggested}`,
          advice:
            suggested === undefined
              ? 'More than 1% of the checks took longer than the largest bucket: find why the endpoint is this slow before raising the timeout.'
              : `Raise timeoutSeconds to ${suggested} (more than twice the ${slow.messageId === 'slow' ? '99th percentile' : 'mean'}), or make the endpoint answer faster.`,
          period:
            suggested !== undefined && suggested >= probe.periodSeconds
              ? ` That reaches periodSeconds ${probe.periodSeconds} s: a check that hangs would delay the next, so raise periodSeconds above it too (timeout-not-below-period and probe-lint timeline show what that does to detection).`
              : '',
        },
        pointer: probe.raw.timeoutSeconds === undefined ? probe.pointer : joinPointer(probe.pointer, 'timeoutSeconds'),
        ...(fix ? { fix } : {}),
        evidence: probeMetricEvidence(measured),
      });
    }
  },
});
