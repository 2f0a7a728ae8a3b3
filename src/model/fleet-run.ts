// One replica through a scenario, as the kubelet runs its probes (pkg/kubelet/prober/worker.go,
// prober_manager.go; restarts in kuberuntime_manager.go and the pod worker's back-off): each probe on
// its own ticker, checks never overlapping; failureThreshold failures in a row act, successThreshold
// successes make a container Ready; a liveness or startup kill stops the container (up to its grace
// period), and the restart waits the back-off measured on the node here (kubelet-measured.md: the
// first two restarts at once, then 10, 20, 40 … s, capped at 300 s; up to 1.5× longer with the pod
// worker's requeue jitter). What the kubelet's timing leaves open — where in its period a check falls
// when the failure starts, how long a killed container takes to stop, the back-off's jitter, how
// soon a new container's first check comes — is a Timing; fleet.ts runs a grid of them and takes the
// envelope, since a faster schedule can cost a replica one more kill (and a later return) than a
// slower one, so no single pair of runs bounds every moment.
import type { EffectiveProbe, ProbeType } from './effective-probe.js';
import type { CheckCondition } from './fleet-reach.js';
import { EXEC_START_SECONDS } from './timing.js';

/** Where, between its extremes (0 and 1), each open part of the kubelet's timing falls in one run. */
export interface Timing {
  /** The first failing check: at the very start of the failure (0), or a whole period after it (1). */
  phase: number;
  /** A killed container stops at once (0), or takes its whole grace period (1). */
  stop: number;
  /** The back-off's jitter: 1 to 1.5. */
  jitter: number;
  /** A new container's first check: at once (0), or a period after initialDelaySeconds (1); an exec check's start-up too. */
  firstCheck: number;
}

export const EARLY: Timing = { phase: 0, stop: 0, jitter: 1, firstCheck: 0 };
export const LATE: Timing = { phase: 1, stop: 1, jitter: 1.5, firstCheck: 1 };
export type FleetAction = 'unready' | 'ready' | 'kill' | 'restart' | 'started';

export interface RunEvent {
  action: FleetAction;
  at: number;
  container: string;
}

export interface SimulatedContainer {
  name: string;
  probes: Partial<Record<ProbeType, EffectiveProbe>>;
  conditions: Partial<Record<ProbeType, CheckCondition[]>>;
  /** Never: a kill ends it (ContainerRestartRules); else it is restarted. */
  restarted: boolean;
  /** Seconds the kubelet waits for it to stop after a kill (the probe's terminationGracePeriodSeconds, else the Pod's). */
  gracePeriod: number;
}

/** Back-off before the n-th restart (0-based) after kills: the kubelet's CrashLoopBackOff as measured (KubeletCrashLoopBackOffMax: 300 s). */
export function backOffSeconds(restart: number): number {
  return restart < 2 ? 0 : Math.min(300, 10 * 2 ** (restart - 2));
}

/** Past the scenario's end, a run stops at the latest this much later (the back-off cap twice over, and a start-up). */
const SETTLE_SECONDS = 900;
/** Events a run records at most: a scenario of a day with a 1 s period stays bounded. */
const MAX_EVENTS = 5_000;

interface Queued {
  at: number;
  kind: 'check' | 'result' | 'restart';
  probe?: ProbeType;
  failed?: boolean;
  generation: number;
  order: number;
}

/** The container's events through the scenario (its first part starting at `start`, its last ending at `end`), with one timing. */
export function runContainer(container: SimulatedContainer, span: { start: number; end: number }, timing: Timing): RunEvent[] {
  const { start, end } = span;
  const events: RunEvent[] = [];
  const queue: Queued[] = [];
  let order = 0;
  let generation = 0;
  const push = (item: Omit<Queued, 'generation' | 'order'>) => queue.push({ ...item, generation, order: order++ });
  const { startup, liveness, readiness } = container.probes;
  const state = { running: true, started: true, ready: true, restarts: 0, failures: { startup: 0, liveness: 0, readiness: 0 }, successes: 0 };
  const emit = (action: FleetAction, at: number) => events.push({ action, at: round(at), container: container.name });
  // Steady state before the scenario: started, Ready, each probe's ticker at its phase: a check at the
  // very start of the first part (phase 0), or just before it, so that the first failing one comes a period later (phase 1).
  const phase = (probe: EffectiveProbe) => start + timing.phase * probe.periodSeconds;
  if (liveness !== undefined) push({ at: phase(liveness), kind: 'check', probe: 'liveness' });
  if (readiness !== undefined) push({ at: phase(readiness), kind: 'check', probe: 'readiness' });

  const kill = (at: number) => {
    emit('kill', at);
    if (state.ready) emit('unready', at);
    state.running = false;
    state.ready = false;
    generation++;
    if (!container.restarted) return;
    const stop = timing.stop * container.gracePeriod;
    const backOff = backOffSeconds(state.restarts) * timing.jitter;
    state.restarts++;
    push({ at: at + stop + backOff, kind: 'restart' });
  };
  // The kubelet counts initialDelaySeconds from the start time in whole seconds (up to one early), then checks on its ticker.
  const firstCheck = (probe: EffectiveProbe, at: number) =>
    at + Math.max(0, probe.initialDelaySeconds - 1 + timing.firstCheck) + timing.firstCheck * probe.periodSeconds;
  const startProbes = (at: number, afterStartup: boolean) => {
    // Once the startup probe succeeds, readiness checks at once (the status update triggers it) and liveness on its next tick.
    if (liveness !== undefined)
      push({ at: afterStartup ? at + timing.firstCheck * liveness.periodSeconds : firstCheck(liveness, at), kind: 'check', probe: 'liveness' });
    if (readiness !== undefined) push({ at: afterStartup ? at : firstCheck(readiness, at), kind: 'check', probe: 'readiness' });
  };
  const restart = (at: number) => {
    emit('restart', at);
    state.running = true;
    state.started = startup === undefined;
    state.failures = { startup: 0, liveness: 0, readiness: 0 };
    state.successes = 0;
    // Without a readiness probe a started container is Ready at once.
    if (startup !== undefined) push({ at: firstCheck(startup, at), kind: 'check', probe: 'startup' });
    else {
      if (readiness === undefined) setReady(at);
      startProbes(at, false);
    }
  };
  const setReady = (at: number) => {
    if (!state.ready) emit('ready', at);
    state.ready = true;
  };

  while (queue.length > 0 && events.length < MAX_EVENTS) {
    queue.sort((a, b) => a.at - b.at || a.order - b.order);
    const next = queue.shift()!;
    if (next.generation !== generation && next.kind !== 'restart') continue;
    if (next.at > end + SETTLE_SECONDS) break;
    if (next.kind === 'restart') {
      restart(next.at);
      continue;
    }
    const type = next.probe!;
    const probe = container.probes[type]!;
    if (next.kind === 'check') {
      // Past the scenario, a container that is up and Ready stays so: nothing more can happen.
      if (next.at > end && state.running && state.started && (state.ready || readiness === undefined)) continue;
      const check = checkAt(probe, container.conditions[type] ?? [], next.at, timing.firstCheck);
      push({ at: next.at + check.seconds, kind: 'result', probe: type, failed: check.failed });
      // A check that outlasts the period delays the next one: they never overlap.
      push({ at: Math.max(next.at + probe.periodSeconds, next.at + check.seconds), kind: 'check', probe: type });
      continue;
    }
    if (type === 'startup') {
      if (state.started) continue;
      if (!next.failed) {
        state.started = true;
        emit('started', next.at);
        generation++;
        if (readiness === undefined) setReady(next.at);
        startProbes(next.at, true);
      } else if (++state.failures.startup >= probe.failureThreshold) kill(next.at);
      continue;
    }
    if (!state.started) continue;
    if (type === 'liveness') {
      if (!next.failed) state.failures.liveness = 0;
      else if (++state.failures.liveness >= probe.failureThreshold) kill(next.at);
      continue;
    }
    if (!next.failed) {
      state.failures.readiness = 0;
      if (++state.successes >= probe.successThreshold) setReady(next.at);
    } else {
      state.successes = 0;
      if (++state.failures.readiness >= probe.failureThreshold && state.ready) {
        emit('unready', next.at);
        state.ready = false;
      }
    }
  }
  return events;
}

/** How a check that starts at `at` ends: whether it fails, and how long it takes. */
function checkAt(probe: EffectiveProbe, conditions: readonly CheckCondition[], at: number, execStart: number): { failed: boolean; seconds: number } {
  const condition = conditions.find((candidate) => at >= candidate.from && at < candidate.to);
  const exec = probe.handlerKind === 'exec' ? execStart * EXEC_START_SECONDS : 0;
  if (condition === undefined) return { failed: false, seconds: exec };
  if (condition.mode === 'fails') return { failed: true, seconds: exec };
  if (condition.mode === 'hangs') return { failed: true, seconds: probe.timeoutSeconds + exec };
  return condition.latency >= probe.timeoutSeconds
    ? { failed: true, seconds: probe.timeoutSeconds + exec }
    : { failed: false, seconds: condition.latency + exec };
}

function round(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}
