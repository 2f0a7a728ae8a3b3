import { defineRule } from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'init-container-probe',
    severity: 'error',
    summary: 'a probe on an init container that is not a restartable sidecar (restartPolicy: Always)',
    remediation: 'Remove the probe, or make the init container a sidecar with restartPolicy: Always.',
    scope: { roles: ['init'] },
    policy: {
      notExpressible: "The API server's validation refuses probes on init containers that are not restartable sidecars before validating policies run.",
    },
    messages: {
      probe: {
        short: '{field} on an init container is rejected; remove it or set restartPolicy: Always',
        long:
          '{field} on an init container: only init containers with restartPolicy: Always (sidecars) are probed; ' +
          'the API server rejects it ("may not be set for init containers without restartPolicy=Always"). Remove the probe, or make the container a sidecar.',
      },
    },
  },
  checkContainer({ probes, report }) {
    for (const probe of probes) report({ messageId: 'probe', data: { field: probe.field }, pointer: probe.pointer });
  },
});
