import { defineRule } from '../../src/engine/rule.js';
import { handlerIdentity } from '../../src/model/effective-probe.js';
import { isProbed, product } from '../../src/model/describe.js';
import { joinPointer } from '../../src/model/pointer.js';

export default defineRule({
  meta: {
    id: 'liveness-mirrors-readiness',
    severity: 'warning',
    summary: 'liveness and readiness run the same check and liveness acts no later than readiness',
    fixable: true,
    defaultOptions: {},
  },
  checkContainer({ container, probe, spec, report }) {
    if (!isProbed(container.role)) return;
    const liveness = probe('liveness');
    const readiness = probe('readiness');
    if (liveness === undefined || readiness === undefined) return;
    const identity = handlerIdentity(liveness, spec);
    if (identity === undefined || identity !== handlerIdentity(readiness, spec)) return;
    const livenessWindow = liveness.failureThreshold * liveness.periodSeconds;
    const readinessWindow = readiness.failureThreshold * readiness.periodSeconds;
    if (livenessWindow > readinessWindow) return;
    // The smallest threshold that makes liveness act strictly after readiness has taken the pod out.
    const failureThreshold = Math.floor(readinessWindow / liveness.periodSeconds) + 1;
    report({
      pointer: liveness.pointer,
      message:
        `livenessProbe runs the same ${liveness.handlerKind} check as readinessProbe and acts no later ` +
        `(liveness ${product(liveness.failureThreshold, liveness.periodSeconds)}, readiness ${product(readiness.failureThreshold, readiness.periodSeconds)}): ` +
        'when the app is slow under load, it is restarted at the moment it leaves the Service, and restarts cascade across replicas. ' +
        `Make liveness check only that the process is alive, or raise its failureThreshold to ${failureThreshold} or more.`,
      fix: [{ op: 'add', path: joinPointer(liveness.pointer, 'failureThreshold'), value: failureThreshold }],
    });
  },
});
