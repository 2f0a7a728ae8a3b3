// Which of a container's probes a scenario reaches, and what their checks do meanwhile: the same
// reading of a probe's dependencies as liveness-checks-dependencies (an exec client's host, an httpGet
// host, a framework's aggregate health endpoint, which checks every dependency it has).
import type { EffectiveProbe, ProbeType } from './effective-probe.js';
import { execCommand, writtenEnv } from './exec-command.js';
import { remoteHost } from './exec-hosts.js';
import type { ScenarioPart } from './fleet-scenario.js';
import { aggregateEndpoint } from './health-endpoints.js';
import type { ContainerSite } from './pod-site.js';

/** What one check does while a part lasts: fails at once, hangs to its timeout, or takes `latency` seconds. */
export type CheckCondition = { from: number; to: number } & ({ mode: 'fails' } | { mode: 'hangs' } | { mode: 'slow'; latency: number });

/** What a probe contacts besides its own container. */
export interface ProbeReach {
  /** Hosts named by its exec client or its httpGet host. */
  hosts: string[];
  /** A framework aggregate health endpoint (it fails when any dependency does), e.g. "Spring Boot's aggregate health". */
  aggregate: string | undefined;
}

export const SIMULATED_PROBES: readonly ProbeType[] = ['startup', 'liveness', 'readiness'];

export function probeReach(site: ContainerSite, probe: EffectiveProbe): ProbeReach {
  if (probe.handlerKind === 'exec') {
    const found = remoteHost(execCommand(probe, site.container));
    return { hosts: found === undefined ? [] : [found.host], aggregate: undefined };
  }
  const httpGet = probe.raw.httpGet;
  if (probe.handlerKind === 'httpGet' && httpGet !== undefined && httpGet !== null) {
    const host = typeof httpGet.host === 'string' && httpGet.host !== '' ? [httpGet.host] : [];
    const path = typeof httpGet.path === 'string' ? httpGet.path : '/';
    return { hosts: host, aggregate: host.length === 0 ? aggregateEndpoint(path, writtenEnv(site.container))?.what : undefined };
  }
  if (probe.handlerKind === 'tcpSocket' || probe.handlerKind === 'grpc') {
    const host = (probe.raw.tcpSocket as { host?: unknown } | undefined)?.host;
    return { hosts: typeof host === 'string' && host !== '' ? [host] : [], aggregate: undefined };
  }
  return { hosts: [], aggregate: undefined };
}

/** Whether a host a probe names is the target: the name itself, or a longer DNS name of it (db → db.shop.svc.cluster.local). */
export function namesTarget(host: string, target: string): boolean {
  const bare = host.toLowerCase().replace(/:\d+$/, '');
  const wanted = target.toLowerCase();
  return bare === wanted || bare.startsWith(`${wanted}.`);
}

/** Why a probe's checks change in `part`, in a few words; undefined when it does not reach it. */
export function reachedBecause(site: ContainerSite, probe: EffectiveProbe, part: ScenarioPart): string | undefined {
  if (part.target === 'self') return 'it checks the app itself';
  const reach = probeReach(site, probe);
  const host = reach.hosts.find((candidate) => namesTarget(candidate, part.target));
  if (host !== undefined) return `it contacts ${host}`;
  if (reach.aggregate !== undefined) return `it requests ${reach.aggregate}, which checks every dependency`;
  return undefined;
}

/** The conditions the checks of `probe` (of the container `site`) meet over the scenario, in time order. */
export function checkConditions(site: ContainerSite, probe: EffectiveProbe, parts: readonly ScenarioPart[]): CheckCondition[] {
  const conditions: CheckCondition[] = [];
  for (const part of parts) {
    if (reachedBecause(site, probe, part) === undefined) continue;
    const span = { from: part.start, to: part.start + part.duration };
    if (part.kind === 'slow') conditions.push({ ...span, mode: 'slow', latency: part.latency! });
    else if (part.kind === 'hang' || part.failure === 'blackhole') conditions.push({ ...span, mode: 'hangs' });
    else conditions.push({ ...span, mode: 'fails' });
  }
  return conditions.sort((a, b) => a.from - b.from);
}
