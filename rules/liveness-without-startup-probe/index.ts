import type { Probe } from 'kubernetes-types/core/v1.js';
import { defineRule } from '../../src/engine/rule.js';
import { isProbed, product } from '../../src/model/describe.js';
import { joinPointer } from '../../src/model/pointer.js';

export default defineRule({
  meta: {
    id: 'liveness-without-startup-probe',
    severity: 'info',
    summary: 'a liveness probe with a long initialDelaySeconds and no startupProbe',
    fixable: true,
    defaultOptions: { minInitialDelaySeconds: 30 },
  },
  checkContainer({ container, probe, options, report }) {
    if (!isProbed(container.role)) return;
    const liveness = probe('liveness');
    if (liveness === undefined || probe('startup') !== undefined || liveness.handlerKinds.length !== 1) return;
    const delay = liveness.initialDelaySeconds;
    if (delay < options.minInitialDelaySeconds) return;
    // Keep the longest start the old settings tolerated: the delay plus liveness's own failure window.
    const budget = delay + liveness.failureThreshold * liveness.periodSeconds;
    const failureThreshold = Math.ceil(budget / liveness.periodSeconds);
    const kind = liveness.handlerKind!;
    const startupProbe: Probe = { [kind]: structuredClone(liveness.raw[kind]), periodSeconds: liveness.periodSeconds, failureThreshold };
    if (liveness.raw.timeoutSeconds) startupProbe.timeoutSeconds = liveness.raw.timeoutSeconds;
    report({
      pointer: joinPointer(liveness.pointer, 'initialDelaySeconds'),
      message:
        `livenessProbe waits initialDelaySeconds ${delay} s on every start and there is no startupProbe: a container that hangs early is not ` +
        `restarted for ${delay} s, and one that needs more than ${delay} s + ${liveness.failureThreshold} × ${liveness.periodSeconds} s = ${budget} s to start ` +
        `is killed before it is up, again and again. Add a startupProbe with the same check ` +
        `(failureThreshold × periodSeconds = ${product(failureThreshold, liveness.periodSeconds)}) and set the liveness delay to 0.`,
      fix: [
        { op: 'add', path: joinPointer(container.pointer, 'startupProbe'), value: startupProbe },
        { op: 'add', path: joinPointer(liveness.pointer, 'initialDelaySeconds'), value: 0 },
      ],
    });
  },
});
