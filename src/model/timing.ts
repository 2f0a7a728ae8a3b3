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

/** When the kubelet acts, as the earliest and latest moment, in seconds from a starting point. */
export interface TimingWindow {
  fromSeconds: number;
  toSeconds: number;
}

/**
 * An exec check's timeout starts only once runc has started the command in the container: on the
 * real node that took 0.1-0.3 s per check (kubelet-measured.md: 30-105 ms more than HTTP at rest,
 * up to 0.23 s a check when the node was busy). Each exec check may end this much later.
 */
export const EXEC_START_SECONDS = 0.3;

/**
 * From the moment the app starts failing until the kubelet acts on `failureThreshold` failures,
 * as measured on a real kubelet (../shared/reference/kubelet-measured.md): the failure begins
 * anywhere in a period, so the first failing check starts within one period of it, then
 * - a check that fails at once: the f-th fails (f−1)·p later: within [(f−1)·p, f·p);
 * - a check that hangs with t ≤ p: each fails t after it starts: within [(f−1)·p + t, f·p + t);
 * - a check that hangs with t > p: checks run back to back, never overlapping: within [f·t, f·t + p).
 * In general a check that takes d seconds is acted on (f−1)·max(p, d) + d after the first starts;
 * an exec check takes up to EXEC_START_SECONDS more than its failure (or its timeout) does.
 * `delaySeconds` shifts the window (a startup probe's initialDelaySeconds, from the container's start).
 * The kubelet counts that delay from the container's start time as its status keeps it, in whole
 * seconds (RFC 3339), so a delay may end up to one second early: measured on the real node, a
 * startup probe with initialDelaySeconds 4, f = 3, p = 2 killed 6.96-9.06 s after the app started.
 */
export function actWindow(
  probe: Pick<EffectiveProbe, 'periodSeconds' | 'timeoutSeconds' | 'failureThreshold'> & { handlerKind?: EffectiveProbe['handlerKind'] },
  mode: FailureMode,
  delaySeconds = 0,
): TimingWindow {
  const { periodSeconds: p, timeoutSeconds: t, failureThreshold: f } = probe;
  // How long one failing check takes: nothing for a fast failure, its timeout for a hanging one.
  const shortest = mode === 'fast' ? 0 : t;
  const longest = shortest + (probe.handlerKind === 'exec' ? EXEC_START_SECONDS : 0);
  const actedAfter = (check: number) => (f - 1) * Math.max(p, check) + check;
  return { fromSeconds: Math.max(0, delaySeconds - 1) + actedAfter(shortest), toSeconds: round(delaySeconds + actedAfter(longest) + p) };
}

/** Tenths of a second: what the windows are quoted in, without 14.899999999999999. */
function round(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}

/**
 * From the moment the app answers again until readiness turns Ready: `successThreshold` successes
 * in a row, the first within one period: within [(s−1)·p, s·p).
 */
export function readyWindow(probe: Pick<EffectiveProbe, 'periodSeconds' | 'successThreshold'>): TimingWindow {
  const { periodSeconds: p, successThreshold: s } = probe;
  return { fromSeconds: (s - 1) * p, toSeconds: s * p };
}

/**
 * "20-30 s", with an ASCII hyphen: one character outside Latin-1 makes V8 store a message, and the
 * whole report built from it, in two bytes per character (an en dash cost 60 MB on 10,000 findings).
 */
export function windowText(window: TimingWindow): string {
  return `${formatSeconds(window.fromSeconds)}-${formatSeconds(window.toSeconds)} s`;
}

function formatSeconds(seconds: number): string {
  // Stryker disable next-line Regex: toFixed(1) writes one ".0", at the end.
  return Number.isInteger(seconds) ? String(seconds) : seconds.toFixed(1).replace(/\.0$/, '');
}
