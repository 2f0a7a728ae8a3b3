// `probe-lint simulate`'s reports: text for a terminal or a log, and JSON in the documented shape
// (docs/simulate.md). Names from the inputs go through visible() in text, as everywhere.
import { describePart, type ScenarioPart } from '../model/fleet-scenario.js';
import type { FleetEvent, FleetOutcome, ServiceDown, SimulatedWorkload, Window } from '../model/fleet.js';
import { describeResource } from '../model/resource.js';
import { visible } from './visible.js';

export interface SimulationReport {
  parts: readonly ScenarioPart[];
  workloads: readonly SimulatedWorkload[];
  /** Serving workloads the scenario does not reach. */
  untouched: number;
}

/** Replicas listed one by one in JSON; past this the events are the same for the rest (replicas tick in step), and `replicasListed` says so. */
const LISTED_REPLICAS = 10;

export function formatSimulationText(report: SimulationReport): string {
  const lines = [`Scenario: ${report.parts.map(describePart).join('; ')}`, ''];
  for (const workload of report.workloads) {
    const where = workload.file === undefined ? '' : ` (${visible(workload.file)}${workload.line === undefined ? '' : `:${workload.line}`})`;
    const replicas = workload.replicas === null ? 'one Pod per node' : `${workload.replicas} ${workload.replicas === 1 ? 'replica' : 'replicas'}`;
    lines.push(`${visible(describeResource(workload.identity))}${where}, ${replicas}`);
    lines.push(`  reached: ${workload.reached.map(visible).join('; ')}`);
    lines.push(`  ${outcomeText(workload)}`);
    if (workload.events.length > 0) lines.push(`  ${workload.replicas === 1 ? 'the replica' : 'every replica, in step'}: ${eventsText(workload.events)}`);
    if (workload.whatIf !== null) {
      lines.push(`  what if ${visible(workload.whatIf.change)}: ${outcomeText(workload.whatIf)}`);
      lines.push(`    the patch (probe-lint --fix writes the same): ${JSON.stringify(workload.whatIf.patch)}`);
    }
    lines.push('');
  }
  const reached = report.workloads.length;
  lines.push(`${reached} ${reached === 1 ? 'workload' : 'workloads'} reached by the scenario, ${report.untouched} not.`);
  return `${lines.join('\n')}\n`;
}

function outcomeText(outcome: FleetOutcome): string {
  const kills =
    outcome.kills.earliest === outcome.kills.latest
      ? String(outcome.kills.earliest)
      : `${Math.min(outcome.kills.earliest, outcome.kills.latest)}-${Math.max(outcome.kills.earliest, outcome.kills.latest)}`;
  const killed = kills === '0' ? 'no kills' : `${kills} ${kills === '1' ? 'kill' : 'kills'} per replica`;
  return `${killed}; ${downText(outcome.serviceDown, outcome.amplification)}`;
}

function downText(down: ServiceDown | null, amplification: number | null): string {
  if (down === null) return 'the service stays up (a replica is Ready throughout)';
  if (down.to === null) return `the service is down from ${windowText(down.from)} and never comes back (a container that is not restarted)`;
  return `the service is down from ${windowText(down.from)} to ${windowText(down.to)}: ${amplification}× the scenario's time`;
}

function eventsText(events: readonly FleetEvent[]): string {
  // The container is named where the Pod has more than one.
  const named = new Set(events.map((event) => event.container)).size > 1;
  const shown = events
    .slice(0, 12)
    .map((event) => `${named ? `${visible(event.container)} ` : ''}${event.action}${event.maybe ? ' (maybe)' : ''} ${windowText(event.at)}`);
  return `${shown.join(', ')}${events.length > shown.length ? `, … (${events.length - shown.length} more)` : ''}`;
}

/** "4-6 s", or "30 s" when both ends are one. */
export function windowText(window: Window): string {
  return window.earliest === window.latest ? `${window.earliest} s` : `${window.earliest}-${window.latest} s`;
}

export function formatSimulationJson(report: SimulationReport): string {
  const json = {
    scenario: report.parts.map((part) => ({
      kind: part.kind,
      target: part.target,
      start: part.start,
      duration: part.duration,
      ...(part.failure !== undefined ? { failure: part.failure } : {}),
      ...(part.latency !== undefined ? { latency: part.latency } : {}),
    })),
    workloads: report.workloads.map((workload) => {
      const listed = workload.replicas === null ? 1 : Math.min(workload.replicas, LISTED_REPLICAS);
      return {
        resource: { kind: workload.identity.kind, namespace: workload.identity.namespace ?? null, name: workload.identity.name ?? null },
        file: workload.file ?? null,
        line: workload.line ?? null,
        replicas: workload.replicas,
        ...(listed !== workload.replicas ? { replicasListed: listed } : {}),
        reached: workload.reached,
        ...outcomeJson(workload, listed),
        whatIf: workload.whatIf === null ? null : { change: workload.whatIf.change, patch: workload.whatIf.patch, ...outcomeJson(workload.whatIf, listed) },
      };
    }),
    untouched: report.untouched,
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

function outcomeJson(outcome: FleetOutcome, replicas: number) {
  return {
    events: Array.from({ length: replicas }, (_, replica) => outcome.events.map((event) => ({ replica, ...event }))).flat(),
    kills: outcome.kills,
    serviceDown: outcome.serviceDown,
    amplification: outcome.amplification,
  };
}
