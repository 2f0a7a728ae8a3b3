import { defineRule } from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'missing-liveness-probe',
    severity: 'info',
    summary: 'a long-running container without a livenessProbe',
    remediation: 'Add a livenessProbe that checks only that the process itself is working, not its dependencies.',
    scope: { roles: ['container'], longRunningOnly: true },
    policy: {
      over: 'longRunning',
      problems: (message) => `!has(c.livenessProbe) && !(has(c.restartPolicy) && c.restartPolicy == 'Never') ? [${message('missing')}] : []`,
    },
    messages: {
      missing: {
        short: 'no livenessProbe: a hung process is never restarted; add one that checks only the process',
        long:
          'no livenessProbe: if it deadlocks or hangs without exiting, the kubelet never restarts it. ' +
          'Add a livenessProbe that checks only that the process itself is working (not its dependencies).',
      },
    },
  },
  checkContainer({ container, probe, report }) {
    // KubeRay adds one to the Ray container of each group when it has none. A container whose own
    // policy is Never is not restarted after a liveness kill: a probe would only end it.
    if (probe('liveness') === undefined && container.probesAddedBy === undefined && container.restartPolicy !== 'Never')
      report({ messageId: 'missing', pointer: container.pointer });
  },
});
