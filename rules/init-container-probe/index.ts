import { defineRule } from '../../src/engine/rule.js';

export default defineRule({
  meta: {
    id: 'init-container-probe',
    severity: 'error',
    summary: 'a probe on an init container that is not a restartable sidecar (restartPolicy: Always)',
    fixable: false,
    defaultOptions: {},
  },
  checkContainer({ container, probes, report }) {
    if (container.role !== 'init') return;
    for (const probe of probes) {
      report({
        pointer: probe.pointer,
        message:
          `${probe.field} on an init container: only init containers with restartPolicy: Always (sidecars) are probed; ` +
          'the API server rejects it ("may not be set for init containers without restartPolicy=Always"). Remove the probe, or make the container a sidecar.',
      });
    }
  },
});
