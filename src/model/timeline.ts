// What the kubelet does with a container's probes, and when: the windows `probe-lint timeline`
// prints, computed by the one timing model (timing.ts) that every rule's message also reads.
import { effectiveProbe, type EffectiveProbe, type ProbeType } from './effective-probe.js';
import type { ContainerSite } from './pod-site.js';
import { actWindow, readyWindow, type FailureMode, type TimingWindow } from './timing.js';

/** `kill` and `startup-kill`: the container's restart policy is Never, so it is killed and not restarted. */
export type TimelineAction = 'restart' | 'kill' | 'unready' | 'ready' | 'startup-restart' | 'startup-kill';
export type TimelineCase = 'fails-fast' | 'hangs' | 'recovers';

export interface TimelineWindow extends TimingWindow {
  probe: `${ProbeType}Probe`;
  action: TimelineAction;
  case: TimelineCase;
  /** What the window counts from. */
  from: 'failure' | 'recovery' | 'container-start';
}

/**
 * The windows of one container: liveness restart and readiness unready, counted from the moment
 * the app starts failing (liveness runs only once a startup probe has succeeded, so its window
 * applies from then on); readiness ready again, from the moment the app recovers; the startup probe
 * giving up (a restart), from the container's start, initialDelaySeconds included. Probes whose
 * values the API server would not accept have no windows.
 */
export function timelineOf(container: ContainerSite): TimelineWindow[] {
  // Built per call, not at load: Stryker's runner does not run the tests against a mutant of a module constant.
  const CASES: readonly [FailureMode, TimelineCase][] = [
    ['fast', 'fails-fast'],
    // Stryker disable next-line StringLiteral: every mode but "fast" is read as hanging.
    ['hanging', 'hangs'],
  ];
  const windows: TimelineWindow[] = [];
  const probe = (type: ProbeType): EffectiveProbe | undefined => {
    const found = effectiveProbe(container, type);
    // Valid numbers are positive: 0 is the default, and negative ones are invalid.
    return found?.numbersValid ? found : undefined;
  };
  // A probe failure restarts the container unless its policy (its own, else the pod's) is Never
  // (kuberuntime_manager.go computePodActions; ContainerRestartRules since 1.35).
  const restarted = container.restartPolicy !== 'Never';
  const startup = probe('startup');
  if (startup !== undefined) {
    for (const [mode, name] of CASES)
      windows.push({
        probe: 'startupProbe',
        action: restarted ? 'startup-restart' : 'startup-kill',
        case: name,
        from: 'container-start',
        ...actWindow(startup, mode, startup.initialDelaySeconds),
      });
  }
  const liveness = probe('liveness');
  if (liveness !== undefined) {
    for (const [mode, name] of CASES)
      windows.push({ probe: 'livenessProbe', action: restarted ? 'restart' : 'kill', case: name, from: 'failure', ...actWindow(liveness, mode) });
  }
  const readiness = probe('readiness');
  if (readiness !== undefined) {
    for (const [mode, name] of CASES) windows.push({ probe: 'readinessProbe', action: 'unready', case: name, from: 'failure', ...actWindow(readiness, mode) });
    windows.push({ probe: 'readinessProbe', action: 'ready', case: 'recovers', from: 'recovery', ...readyWindow(readiness) });
  }
  return windows;
}
