import {
  checkIdentity,
  defineRule,
  intervalSeconds,
  joinPointer,
  PROBED_CONTAINERS,
  secondsToAct,
  secondsToActText,
  type FailureMode,
} from '../../src/rule-api.js';

const WHEN: Record<string, string> = {
  both: 'whether the check fails at once or hangs until its timeout',
  fast: 'when the check fails at once (refused, HTTP 500, exit 1)',
  hanging: 'when the check hangs until its timeout',
};

export default defineRule({
  meta: {
    id: 'liveness-mirrors-readiness',
    severity: 'warning',
    summary: 'liveness and readiness run the same check and liveness acts no later than readiness',
    remediation:
      'Make liveness check only that the process itself is alive (a separate, cheap endpoint), or raise its failureThreshold so that it acts well after readiness.',
    scope: PROBED_CONTAINERS,
    fix: 'suggestion',
    messages: {
      mirrors: {
        short: "liveness runs readiness's {handler} check and acts no later ({liveness} vs {readiness} s); raise its failureThreshold to {threshold}",
        long:
          'livenessProbe runs the same {handler} check as readinessProbe and acts no later {when} (liveness {livenessText}, readiness {readinessText}): ' +
          'when the app is slow or failing under load, it is {restarted} at the moment it leaves the Service, and restarts cascade across replicas. ' +
          'Make liveness check only that the process is alive, or raise its failureThreshold to {threshold} or more.',
      },
    },
  },
  checkContainer({ container, probe, spec, report }) {
    const liveness = probe('liveness');
    const readiness = probe('readiness');
    if (liveness === undefined || readiness === undefined || !liveness.numbersValid || !readiness.numbersValid) return;
    const identity = checkIdentity(liveness, spec);
    if (identity === undefined || identity !== checkIdentity(readiness, spec)) return;
    const modes = (['hanging', 'fast'] as const).filter((mode) => secondsToAct(liveness, mode) <= secondsToAct(readiness, mode));
    if (modes.length === 0) return;
    // The smallest threshold that makes liveness act strictly after readiness in both cases.
    const threshold = Math.max(
      ...(['fast', 'hanging'] as const).map((mode) => Math.floor(secondsToAct(readiness, mode) / intervalSeconds(liveness, mode)) + 1),
    );
    const shown: FailureMode = modes[0]!;
    report({
      messageId: 'mirrors',
      data: {
        handler: liveness.handlerKind ?? '',
        when: WHEN[modes.length === 2 ? 'both' : shown]!,
        liveness: secondsToAct(liveness, shown),
        readiness: secondsToAct(readiness, shown),
        livenessText: secondsToActText(liveness, shown),
        readinessText: secondsToActText(readiness, shown),
        restarted: container.restartPolicy === 'Never' ? 'killed (restartPolicy Never: not restarted)' : 'restarted',
        threshold,
      },
      pointer: liveness.pointer,
      fix: [{ op: 'add', path: joinPointer(liveness.pointer, 'failureThreshold'), value: threshold }],
    });
  },
});
