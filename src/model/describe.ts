// Wording shared by rule messages, so every rule states numbers and consequences the same way.
import type { Probe } from 'kubernetes-types/core/v1.js';
import type { EffectiveProbe, ProbeNumberField } from './effective-probe.js';
import type { RestartPolicy } from './pod-site.js';

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

/**
 * What the kubelet does when this probe type fails (kuberuntime_manager.go computePodActions):
 * liveness and startup failures kill the container, which then restarts only if its restart
 * policy allows (Never: it stays terminated; OnFailure: a killed container counts as failed);
 * readiness only takes the pod out of its Services.
 */
export function failureConsequence(probe: Pick<EffectiveProbe, 'type'>, restartPolicy: RestartPolicy): string {
  if (probe.type === 'readiness') return 'a failing pod is taken out of its Services';
  const who = probe.type === 'liveness' ? 'a failing container' : 'a container that has not started';
  return restartPolicy === 'Never' ? `${who} is killed and, with restartPolicy Never, not restarted` : `${who} is killed and restarted`;
}

/** "1 time", "14 times": a count with its noun. */
export function counted(count: number, noun: string): string {
  return `${count} ${count === 1 ? noun : `${noun}s`}`;
}

/** Text the cluster wrote (an event's message), quoted for a message: one line, control characters dropped, at most 160 characters. */
export function quotedFromCluster(text: string): string {
  const line = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g, ' ').trim();
  return `"${line.length > 160 ? `${line.slice(0, 157)}...` : line}"`;
}
