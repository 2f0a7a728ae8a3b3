import { defineRule } from '../../src/engine/rule.js';

export default defineRule({
  meta: {
    id: 'missing-liveness-probe',
    severity: 'info',
    summary: 'a long-running container without a livenessProbe',
    fixable: false,
    defaultOptions: {},
  },
  checkContainer({ site, container, probe, report }) {
    if (container.role !== 'container' || !site.longRunning || probe('liveness') !== undefined) return;
    report({
      pointer: container.pointer,
      message:
        `no livenessProbe: if it deadlocks or hangs without exiting, the kubelet never restarts it. ` +
        'Add a livenessProbe that checks only that the process itself is working (not its dependencies).',
    });
  },
});
