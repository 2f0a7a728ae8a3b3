// What a workload's replicas do through a scenario, and the smallest change that keeps its outage
// from outlasting the scenario's. Replicas created together tick in step (the kubelet's random first
// delay applies only within one period of its own start), so one replica's run is every replica's:
// when the last replica leaves its Services the service is down, and it is back when the first one
// returns. Each moment is a window: from the run at the early bound to the run at the late one.
import { effectiveProbe, type EffectiveProbe, type ProbeType } from './effective-probe.js';
import { checkConditions, reachedBecause, SIMULATED_PROBES } from './fleet-reach.js';
import { runContainer, type FleetAction, type RunEvent, type SimulatedContainer, type Timing } from './fleet-run.js';
import type { ScenarioPart } from './fleet-scenario.js';
import type { ContainerSite, PodSite } from './pod-site.js';
import { writtenEnv } from './exec-command.js';
import { aggregateEndpoint } from './health-endpoints.js';
import type { ResourceIdentity } from './resource.js';

export interface Window {
  earliest: number;
  latest: number;
}

export interface FleetEvent {
  container: string;
  action: FleetAction;
  at: Window;
  /** It happens in one bound's run only: the kubelet may or may not do it, by when its checks fall. */
  maybe?: true;
}

export interface ServiceDown {
  from: Window;
  /** null: the service never comes back (a container that is not restarted). */
  to: Window | null;
}

export interface FleetOutcome {
  events: FleetEvent[];
  serviceDown: ServiceDown | null;
  /** The longest the service can be down, over the scenario's duration; null when it never comes back or is never down. */
  amplification: number | null;
  /** Kills per replica, at the early and the late bound. */
  kills: Window;
}

export interface WhatIf extends FleetOutcome {
  /** RFC 6902 operations on the document, as --fix writes them. */
  patch: { op: 'add' | 'replace'; path: string; value: unknown }[];
  /** What the patch changes, in words. */
  change: string;
}

export interface WorkloadSimulation extends FleetOutcome {
  /** Why each affected probe's checks change, e.g. "livenessProbe of app: it contacts db". */
  reached: string[];
  /** The indexes of the scenario's parts that reach one of its probes. */
  reachedParts: number[];
  whatIf: WhatIf | null;
}

/** A workload of the inputs and what the scenario does to it. */
export interface SimulatedWorkload extends WorkloadSimulation {
  identity: ResourceIdentity;
  file: string | undefined;
  line: number | undefined;
  /** spec.replicas (1 when unset); null for a DaemonSet: one per node. */
  replicas: number | null;
}

/** A container's probes may be changed by a what-if. */
type ProbeChange = (container: string, type: ProbeType, probe: EffectiveProbe) => EffectiveProbe;

/** Long-running containers are the ones that serve: init containers end, and ephemeral ones are never probed. */
function servingContainers(site: PodSite) {
  return site.containers.filter((container) => container.role === 'container' || container.role === 'sidecar');
}

function simulatedContainers(site: PodSite, parts: readonly ScenarioPart[], change?: ProbeChange): SimulatedContainer[] {
  const podGrace = typeof site.spec.terminationGracePeriodSeconds === 'number' ? site.spec.terminationGracePeriodSeconds : 30;
  return servingContainers(site).map((container) => {
    const probes: Partial<Record<ProbeType, EffectiveProbe>> = {};
    const conditions: SimulatedContainer['conditions'] = {};
    for (const type of SIMULATED_PROBES) {
      const found = effectiveProbe(container, type);
      if (found === undefined || !found.numbersValid) continue;
      const probe = change === undefined ? found : change(container.name, type, found);
      probes[type] = probe;
      conditions[type] = checkConditions(container, probe, parts);
    }
    const probeGrace = probes.liveness?.raw.terminationGracePeriodSeconds;
    return {
      name: container.name,
      probes,
      conditions,
      restarted: container.restartPolicy !== 'Never',
      gracePeriod: Math.min(typeof probeGrace === 'number' && probeGrace > 0 ? probeGrace : podGrace, 3600),
    };
  });
}

/** The scenario's span: from its first start to its last end. */
export function scenarioSpan(parts: readonly ScenarioPart[]): { start: number; end: number } {
  return { start: Math.min(...parts.map((part) => part.start)), end: Math.max(...parts.map((part) => part.start + part.duration)) };
}

/**
 * The timings each scenario is run with: every corner of the open parts of the kubelet's timing and
 * their middles. The envelope of their runs is the prediction: no single pair bounds every moment,
 * since a faster schedule can cost a replica one more kill, and so a later return, than a slower one
 * (measured on the node: a third restart that came after the dependency was back).
 */
const TIMINGS: readonly Timing[] = (() => {
  const timings: Timing[] = [];
  for (const phase of [0, 0.5, 1])
    for (const stop of [0, 1]) for (const jitter of [1, 1.25, 1.5]) for (const firstCheck of [0, 0.5, 1]) timings.push({ phase, stop, jitter, firstCheck });
  return timings;
})();

/**
 * Outcomes already simulated, by what decides them (the containers' probe numbers, handlers,
 * conditions, restart policy and grace period): the workloads of a large input share a handful of
 * probe settings, and each is simulated once. Bounded: cleared past OUTCOMES_KEPT.
 */
const outcomes = new Map<string, FleetOutcome>();
const OUTCOMES_KEPT = 10_000;

function outcomeKey(containers: readonly SimulatedContainer[], span: { start: number; end: number }): string {
  return JSON.stringify([
    span,
    containers.map((container) => [
      container.name,
      container.restarted,
      container.gracePeriod,
      SIMULATED_PROBES.map((type) => {
        const probe = container.probes[type];
        return probe === undefined
          ? null
          : [
              probe.periodSeconds,
              probe.timeoutSeconds,
              probe.failureThreshold,
              probe.successThreshold,
              probe.initialDelaySeconds,
              probe.handlerKind,
              container.conditions[type],
            ];
      }),
    ]),
  ]);
}

function outcome(site: PodSite, parts: readonly ScenarioPart[], change?: ProbeChange): FleetOutcome {
  const span = scenarioSpan(parts);
  const containers = simulatedContainers(site, parts, change);
  const key = outcomeKey(containers, span);
  const known = outcomes.get(key);
  if (known !== undefined) return known;
  const result = simulatedOutcome(containers, span);
  if (outcomes.size >= OUTCOMES_KEPT) outcomes.clear();
  outcomes.set(key, result);
  return result;
}

function simulatedOutcome(containers: readonly SimulatedContainer[], span: { start: number; end: number }): FleetOutcome {
  const runs = TIMINGS.map((timing) => containers.map((container) => runContainer(container, span, timing)));
  const events = envelopeEvents(runs.map((run) => run.flat()));
  const serviceDown = serviceDownOf(runs.map((run) => downInterval(run, containers.length)));
  const kills = runs.map((run) => run.flat().filter((event) => event.action === 'kill').length);
  const duration = span.end - span.start;
  const amplification =
    serviceDown === null || serviceDown.to === null ? null : Math.round(((serviceDown.to.latest - serviceDown.from.earliest) / duration) * 10) / 10;
  return { events, serviceDown, amplification, kills: { earliest: Math.min(...kills), latest: Math.max(...kills) } };
}

/**
 * The k-th event of each container and action, over every run: its window spans the runs that have
 * one; an event some runs do not have is `maybe`.
 */
function envelopeEvents(runs: readonly (readonly RunEvent[])[]): FleetEvent[] {
  const key = (event: RunEvent) => `${event.container}\u0000${event.action}`;
  const windows = new Map<string, { container: string; action: RunEvent['action']; at: Window; runs: number }>();
  for (const run of runs) {
    const seen = new Map<string, number>();
    for (const event of run) {
      const index = seen.get(key(event)) ?? 0;
      seen.set(key(event), index + 1);
      const slot = `${key(event)}\u0000${index}`;
      const known = windows.get(slot);
      if (known === undefined) windows.set(slot, { container: event.container, action: event.action, at: { earliest: event.at, latest: event.at }, runs: 1 });
      else {
        known.at = { earliest: Math.min(known.at.earliest, event.at), latest: Math.max(known.at.latest, event.at) };
        known.runs++;
      }
    }
  }
  return [...windows.values()]
    .map(({ container, action, at, runs: count }) => ({ container, action, at, ...(count < runs.length ? { maybe: true as const } : {}) }))
    .sort((a, b) => a.at.earliest - b.at.earliest);
}

/** When the Pod (every container Ready) first stops being Ready and when it is last Ready again, in one run. */
function downInterval(run: readonly RunEvent[][], containers: number): { from: number; to: number | null } | null {
  const changes = run.flat().filter((event) => event.action === 'ready' || event.action === 'unready');
  changes.sort((a, b) => a.at - b.at);
  let unready = 0;
  let from: number | undefined;
  let to: number | null = null;
  for (const change of changes) {
    unready += change.action === 'unready' ? 1 : -1;
    if (unready > 0 && from === undefined) from = change.at;
    if (unready === 0 && from !== undefined) to = change.at;
    if (unready > 0) to = null;
  }
  if (from === undefined || containers === 0) return null;
  return { from, to };
}

function serviceDownOf(downs: readonly ({ from: number; to: number | null } | null)[]): ServiceDown | null {
  const runs = downs.filter((run): run is { from: number; to: number | null } => run !== null);
  if (runs.length === 0) return null;
  const window = (values: number[]): Window => ({ earliest: Math.min(...values), latest: Math.max(...values) });
  const ends = runs.map((run) => run.to);
  return { from: window(runs.map((run) => run.from)), to: ends.some((end) => end === null) ? null : window(ends as number[]) };
}

/** The probes the scenario reaches, in words. */
function reachedProbes(site: PodSite, parts: readonly ScenarioPart[]): { reached: string[]; reachedParts: number[] } {
  const reached: string[] = [];
  const reachedParts = new Set<number>();
  for (const container of servingContainers(site))
    for (const type of SIMULATED_PROBES) {
      const probe = effectiveProbe(container, type);
      if (probe === undefined) continue;
      parts.forEach((part, index) => {
        const because = reachedBecause(container, probe, part);
        if (because === undefined) return;
        reached.push(`${probe.field} of ${container.name}: ${because}`);
        reachedParts.add(index);
      });
    }
  return { reached: [...new Set(reached)], reachedParts: [...reachedParts].sort((a, b) => a - b) };
}

/** Failure thresholds tried for the what-if: enough for the longest scenario a period of 1 s allows. */
const MAX_THRESHOLD = 10_000;

/** A what-if is worth showing when the service is down longer than the scenario lasts, or never comes back. */
function amplified(result: FleetOutcome): boolean {
  return result.serviceDown !== null && (result.amplification === null || result.amplification > 1);
}

/**
 * The smallest change under which no replica is killed: for a liveness probe that requests a
 * framework's aggregate health (when the scenario is of a dependency), the framework's liveness
 * endpoint instead — the fix liveness-checks-dependencies gives; else the smallest liveness
 * failureThreshold that outlasts the scenario, found by simulating (doubling, then bisecting).
 */
function whatIfOf(site: PodSite, parts: readonly ScenarioPart[], original: FleetOutcome): WhatIf | null {
  if (!amplified(original) || (original.kills.latest === 0 && original.kills.earliest === 0)) return null;
  const killers = servingContainers(site).filter((container) => {
    const liveness = effectiveProbe(container, 'liveness');
    return liveness !== undefined && parts.some((part) => reachedBecause(container, liveness, part) !== undefined);
  });
  if (killers.length === 0) return null;
  const paths = new Map<string, string>();
  const raised = new Map<string, number>();
  const change: ProbeChange = (container, type, probe) => {
    if (type !== 'liveness') return probe;
    const path = paths.get(container);
    const changed = path === undefined ? probe : { ...probe, raw: { ...probe.raw, httpGet: { ...probe.raw.httpGet!, path } } };
    return raised.has(container) ? { ...changed, failureThreshold: raised.get(container)! } : changed;
  };
  const kills = (name: string) => outcome(site, parts, change).events.some((event) => event.action === 'kill' && event.container === name);
  const patch: WhatIf['patch'] = [];
  const words: string[] = [];
  for (const container of killers) {
    const liveness = effectiveProbe(container, 'liveness')!;
    const endpoint = aggregateLiveness(container, liveness, parts);
    if (endpoint !== undefined) {
      paths.set(container.name, endpoint);
      if (!kills(container.name)) {
        patch.push({ op: 'replace', path: `${liveness.pointer}/httpGet/path`, value: endpoint });
        words.push(`livenessProbe of ${container.name} requests ${endpoint}, the framework's liveness endpoint`);
        continue;
      }
      paths.delete(container.name);
    }
    const threshold = smallestThreshold(liveness.failureThreshold, (value) => {
      raised.set(container.name, value);
      return kills(container.name);
    });
    if (threshold === undefined) return null;
    raised.set(container.name, threshold);
    patch.push({ op: liveness.raw.failureThreshold === undefined ? 'add' : 'replace', path: `${liveness.pointer}/failureThreshold`, value: threshold });
    words.push(`livenessProbe.failureThreshold of ${container.name} ${liveness.failureThreshold} → ${threshold}`);
  }
  return { ...outcome(site, parts, change), patch, change: words.join(', ') };
}

/** The framework's liveness path for a liveness probe that requests its aggregate health, when the scenario is of a dependency. */
function aggregateLiveness(container: ContainerSite, liveness: EffectiveProbe, parts: readonly ScenarioPart[]): string | undefined {
  if (parts.some((part) => part.target === 'self') || liveness.handlerKind !== 'httpGet') return undefined;
  const path = liveness.raw.httpGet?.path;
  if (typeof path !== 'string' || (typeof liveness.raw.httpGet?.host === 'string' && liveness.raw.httpGet.host !== '')) return undefined;
  return aggregateEndpoint(path, writtenEnv(container.container))?.liveness;
}

/** The smallest threshold above `from` under which `kills` says no, or undefined past MAX_THRESHOLD. */
function smallestThreshold(from: number, kills: (threshold: number) => boolean): number | undefined {
  let high = Math.max(from * 2, from + 1);
  while (kills(high)) {
    high *= 2;
    if (high >= MAX_THRESHOLD) return undefined;
  }
  let low = from;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (kills(middle)) low = middle;
    else high = middle;
  }
  return high;
}

/** The workload through the scenario; undefined when the scenario reaches none of its probes (nothing is simulated then). */
export function simulateWorkload(site: PodSite, parts: readonly ScenarioPart[]): WorkloadSimulation | undefined {
  const reached = reachedProbes(site, parts);
  if (reached.reached.length === 0) return undefined;
  const original = outcome(site, parts);
  return { ...original, ...reached, whatIf: whatIfOf(site, parts, original) };
}
