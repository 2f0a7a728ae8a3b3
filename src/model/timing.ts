// One timing model for every rule and message (kubelet prober, pkg/kubelet/prober/worker.go):
// probes start on a ticker every periodSeconds and never overlap. A check that fails at once
// (connection refused, HTTP 500, exit 1) fails once per period; a check that hangs runs until
// timeoutSeconds, and when that is at or above the period the next probe starts as soon as it
// returns. The kubelet acts when failureThreshold failures in a row are reached.
import type { EffectiveProbe } from './effective-probe.js';

/** How a failing check fails: at once, or by hanging until its timeout. */
export type FailureMode = 'fast' | 'hanging';

/** Seconds between consecutive probe starts while the check fails in this way. */
export function intervalSeconds(probe: Pick<EffectiveProbe, 'periodSeconds' | 'timeoutSeconds'>, mode: FailureMode): number {
  return mode === 'fast' ? probe.periodSeconds : Math.max(probe.periodSeconds, probe.timeoutSeconds);
}

/**
 * Seconds from the first failing check until the kubelet acts: failureThreshold × period for a
 * fast failure, failureThreshold × max(period, timeout) for a hanging check.
 */
export function secondsToAct(probe: Pick<EffectiveProbe, 'periodSeconds' | 'timeoutSeconds' | 'failureThreshold'>, mode: FailureMode): number {
  return probe.failureThreshold * intervalSeconds(probe, mode);
}

/** "3 × 10 s = 30 s": the same arithmetic as secondsToAct, written out for messages. */
export function secondsToActText(probe: Pick<EffectiveProbe, 'periodSeconds' | 'timeoutSeconds' | 'failureThreshold'>, mode: FailureMode): string {
  const interval = intervalSeconds(probe, mode);
  return `${probe.failureThreshold} × ${interval} s = ${probe.failureThreshold * interval} s`;
}
