import { defineRule, joinPointer, PROBED_CONTAINERS } from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'readiness-termination-grace-period',
    severity: 'error',
    summary: 'terminationGracePeriodSeconds on a readinessProbe, which the API server rejects',
    remediation: 'Remove the field; to shorten the kill after a liveness failure, set it on the livenessProbe.',
    scope: PROBED_CONTAINERS,
    fix: 'fix',
    policy: {
      notExpressible: "The API server's validation refuses terminationGracePeriodSeconds on a readiness probe before validating policies run.",
    },
    messages: {
      set: {
        short: 'readinessProbe.terminationGracePeriodSeconds ({value}) is rejected by the API server; remove it',
        long:
          'readinessProbe.terminationGracePeriodSeconds is set ({value}); the API server rejects it ("must not be set for readinessProbes") ' +
          'because a failing readiness probe never kills the container. Remove the field; to shorten kills after a liveness failure, set it on the livenessProbe.',
      },
    },
  },
  checkContainer({ probe, report }) {
    const readiness = probe('readiness');
    if (readiness === undefined) return;
    const value = readiness.raw.terminationGracePeriodSeconds;
    if (value === undefined || value === null) return;
    const pointer = joinPointer(readiness.pointer, 'terminationGracePeriodSeconds');
    report({ messageId: 'set', data: { value }, pointer, fix: [{ op: 'remove', path: pointer }] });
  },
});
