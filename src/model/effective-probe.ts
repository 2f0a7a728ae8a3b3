import type { Container, Probe } from 'kubernetes-types/core/v1.js';
import { joinPointer } from './pointer.js';
import type { ContainerSite } from './pod-site.js';

export type ProbeType = 'liveness' | 'readiness' | 'startup';
export const PROBE_TYPES: readonly ProbeType[] = ['startup', 'liveness', 'readiness'];
export type HandlerKind = 'exec' | 'httpGet' | 'tcpSocket' | 'grpc';
/** The order the API server's `validateHandler` checks handlers in. */
export const HANDLER_KINDS: readonly HandlerKind[] = ['exec', 'httpGet', 'tcpSocket', 'grpc'];

/** Reference §1b, `SetDefaults_Probe`: a zero or absent value becomes this. */
export const PROBE_DEFAULTS = {
  timeoutSeconds: 1,
  periodSeconds: 10,
  successThreshold: 1,
  failureThreshold: 3,
  initialDelaySeconds: 0,
} as const;

export type ProbeNumberField = keyof typeof PROBE_DEFAULTS;
export const PROBE_NUMBER_FIELDS = Object.keys(PROBE_DEFAULTS) as ProbeNumberField[];

/** A probe as the kubelet will run it: API defaults applied, handler identified. */
export interface EffectiveProbe {
  type: ProbeType;
  /** `livenessProbe`, `readinessProbe` or `startupProbe`. */
  field: string;
  /** Pointer to the probe inside the document. */
  pointer: string;
  raw: Probe;
  timeoutSeconds: number;
  periodSeconds: number;
  successThreshold: number;
  failureThreshold: number;
  initialDelaySeconds: number;
  /** Every handler set on the probe, in API order; exactly one is valid. */
  handlerKinds: HandlerKind[];
  /** The first handler, or undefined when none is set. */
  handlerKind: HandlerKind | undefined;
}

export function probeField(type: ProbeType): string {
  return `${type}Probe`;
}

/** Effective value of one number field: absent, zero or not a number means the default. Negative values are kept (they are invalid). */
export function effectiveNumber(probe: Probe, field: ProbeNumberField): number {
  const value = (probe as Record<string, unknown>)[field];
  return typeof value === 'number' && Number.isFinite(value) && value !== 0 ? value : PROBE_DEFAULTS[field];
}

export function effectiveProbe(site: ContainerSite, type: ProbeType): EffectiveProbe | undefined {
  const field = probeField(type);
  const raw = (site.container as unknown as Record<string, unknown>)[field];
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const probe = raw as Probe;
  const handlerKinds = HANDLER_KINDS.filter((kind) => probe[kind] !== undefined && probe[kind] !== null);
  return {
    type,
    field,
    pointer: joinPointer(site.pointer, field),
    raw: probe,
    timeoutSeconds: effectiveNumber(probe, 'timeoutSeconds'),
    periodSeconds: effectiveNumber(probe, 'periodSeconds'),
    successThreshold: effectiveNumber(probe, 'successThreshold'),
    failureThreshold: effectiveNumber(probe, 'failureThreshold'),
    initialDelaySeconds: effectiveNumber(probe, 'initialDelaySeconds'),
    handlerKinds,
    handlerKind: handlerKinds[0],
  };
}

export function effectiveProbes(site: ContainerSite): EffectiveProbe[] {
  return PROBE_TYPES.map((type) => effectiveProbe(site, type)).filter((probe): probe is EffectiveProbe => probe !== undefined);
}

/** Seconds of consecutive failures before the kubelet acts: failureThreshold × max(period, timeout) (reference §2). */
export function secondsToAct(probe: EffectiveProbe): number {
  return probe.failureThreshold * Math.max(probe.periodSeconds, probe.timeoutSeconds);
}

/** A named port resolves to the containerPort declared with that name; numbers stay numbers. */
export function resolvePort(container: Container, port: unknown): number | string | undefined {
  if (typeof port === 'number') return port;
  if (typeof port !== 'string') return undefined;
  const declared = (container.ports ?? []).find((candidate) => candidate?.name === port);
  return declared?.containerPort ?? port;
}

/**
 * What the probe actually checks, after defaults, as a comparable string: two probes with the
 * same identity hit the same endpoint the same way (a named port equals the number it resolves to).
 */
export function handlerIdentity(probe: EffectiveProbe, container: Container): string | undefined {
  const raw = probe.raw;
  switch (probe.handlerKind) {
    case 'exec':
      return JSON.stringify(['exec', raw.exec?.command ?? []]);
    case 'httpGet': {
      const action = raw.httpGet!;
      const headers = (action.httpHeaders ?? []).map((header) => `${String(header?.name).toLowerCase()}:${header?.value}`).sort();
      return JSON.stringify(['httpGet', action.scheme ?? 'HTTP', action.host ?? '', resolvePort(container, action.port), action.path || '/', headers]);
    }
    case 'tcpSocket':
      return JSON.stringify(['tcpSocket', raw.tcpSocket?.host ?? '', resolvePort(container, raw.tcpSocket?.port)]);
    case 'grpc':
      return JSON.stringify(['grpc', raw.grpc?.port, raw.grpc?.service ?? '']);
    default:
      return undefined;
  }
}
