import type { Container, Probe } from 'kubernetes-types/core/v1.js';
import { joinPointer } from './pointer.js';
import type { ContainerSite } from './pod-site.js';

export type ProbeType = 'liveness' | 'readiness' | 'startup';
export const PROBE_TYPES: readonly ProbeType[] = ['startup', 'liveness', 'readiness'];
export type HandlerKind = 'exec' | 'httpGet' | 'tcpSocket' | 'grpc';
/** The order the API server's `validateHandler` checks handlers in. */
export const HANDLER_KINDS: readonly HandlerKind[] = ['exec', 'httpGet', 'tcpSocket', 'grpc'];

/** `SetDefaults_Probe` (pkg/apis/core/v1/defaults.go): a zero or absent value becomes this. initialDelaySeconds has no default: 0 means none. */
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
  /** False when a number field is negative: the API server rejects it, and no timing can be built on it. */
  numbersValid: boolean;
}

export function probeField(type: ProbeType): string {
  return `${type}Probe`;
}

/** Effective value of one number field: absent, null or zero means the default. Negative values are kept (they are invalid). */
export function effectiveNumber(probe: Probe, field: ProbeNumberField): number {
  const value = (probe as Record<string, unknown>)[field];
  return typeof value === 'number' && value !== 0 ? value : PROBE_DEFAULTS[field];
}

export function effectiveProbe(site: ContainerSite, type: ProbeType): EffectiveProbe | undefined {
  const field = probeField(type);
  const raw = (site.container as unknown as Record<string, unknown>)[field];
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const probe = raw as Probe;
  // Written as loops, not filter and spread: this runs for every probe of every container linted.
  const handlerKinds: HandlerKind[] = [];
  for (const kind of HANDLER_KINDS) if (probe[kind] !== undefined && probe[kind] !== null) handlerKinds.push(kind);
  const timeoutSeconds = effectiveNumber(probe, 'timeoutSeconds');
  const periodSeconds = effectiveNumber(probe, 'periodSeconds');
  const successThreshold = effectiveNumber(probe, 'successThreshold');
  const failureThreshold = effectiveNumber(probe, 'failureThreshold');
  const initialDelaySeconds = effectiveNumber(probe, 'initialDelaySeconds');
  return {
    type,
    field,
    pointer: joinPointer(site.pointer, field),
    raw: probe,
    timeoutSeconds,
    periodSeconds,
    successThreshold,
    failureThreshold,
    initialDelaySeconds,
    handlerKinds,
    handlerKind: handlerKinds[0],
    // Stryker disable next-line EqualityOperator: a zero is read as the default, so only initialDelaySeconds (default 0) is ever 0.
    numbersValid: timeoutSeconds >= 0 && periodSeconds >= 0 && successThreshold >= 0 && failureThreshold >= 0 && initialDelaySeconds >= 0,
  };
}

/** The container's probes in startup, liveness, readiness order. */
export function effectiveProbes(site: ContainerSite): EffectiveProbe[] {
  const probes: EffectiveProbe[] = [];
  for (const type of PROBE_TYPES) {
    const probe = effectiveProbe(site, type);
    if (probe !== undefined) probes.push(probe);
  }
  return probes;
}

/** A named port resolves to the containerPort declared with that name (kubelet `ResolveContainerPort`); numbers stay numbers. */
export function resolvePort(container: Container, port: unknown): number | string | undefined {
  if (typeof port === 'number') return port;
  // Stryker disable next-line ConditionalExpression: any other port is undecodable, and its container is not judged.
  if (typeof port !== 'string') return undefined;
  // Stryker disable next-line ArrayDeclaration: an entry that is no mapping has no name, as the replacement's string has none.
  const declared = (container.ports ?? []).find((candidate) => candidate?.name === port);
  return declared?.containerPort ?? port;
}
