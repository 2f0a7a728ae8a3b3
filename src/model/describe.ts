// Wording shared by rule messages, so every rule states numbers the same way.
import type { Probe } from 'kubernetes-types/core/v1.js';
import type { EffectiveProbe, ProbeNumberField } from './effective-probe.js';
import type { ContainerRole } from './pod-site.js';

/** "10 s (default)" when the field was not set (or 0, which defaulting replaces), else "10 s". */
export function secondsText(probe: EffectiveProbe, field: ProbeNumberField): string {
  return `${probe[field]} s${isDefaulted(probe.raw, field) ? ' (default)' : ''}`;
}

/** "3 (default)" or "3". */
export function countText(probe: EffectiveProbe, field: ProbeNumberField): string {
  return `${probe[field]}${isDefaulted(probe.raw, field) ? ' (default)' : ''}`;
}

export function isDefaulted(raw: Probe, field: ProbeNumberField): boolean {
  const value = (raw as Record<string, unknown>)[field];
  return value === undefined || value === null || value === 0;
}

/** "3 × 10 s = 30 s" */
export function product(count: number, seconds: number): string {
  return `${count} × ${seconds} s = ${count * seconds} s`;
}

/** Roles the kubelet runs probes for (reference §2, "Probed containers"). */
export function isProbed(role: ContainerRole): boolean {
  return role === 'container' || role === 'sidecar';
}

/** What the kubelet does when this probe type fails. */
export function failureConsequence(probe: EffectiveProbe): string {
  switch (probe.type) {
    case 'liveness':
      return 'a failing container is restarted';
    case 'startup':
      return 'a container that has not started is killed and restarted';
    case 'readiness':
      return 'a failing pod is taken out of its Services';
  }
}
