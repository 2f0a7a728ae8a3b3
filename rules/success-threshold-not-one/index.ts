import { defineRule, joinPointer, PROBED_CONTAINERS } from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'success-threshold-not-one',
    severity: 'error',
    summary: 'successThreshold other than 1 on a liveness or startup probe, which the API server rejects',
    remediation: 'Set successThreshold to 1 (or leave it out); only a readinessProbe may require several successes.',
    scope: PROBED_CONTAINERS,
    fix: 'fix',
    policy: {
      notExpressible: "The API server's validation refuses a successThreshold other than 1 on liveness and startup probes before validating policies run.",
    },
    messages: {
      notOne: {
        short: '{field}.successThreshold is {value}; liveness and startup accept only 1. Set 1',
        long:
          '{field}.successThreshold is {value}; the API server rejects any value but 1 for liveness and startup probes ("must be 1"): ' +
          'one success already means the container is alive or started. Set it to 1 (only readinessProbe may require several successes).',
      },
    },
  },
  checkContainer({ probes, report }) {
    for (const probe of probes) {
      // A negative value is probe-field-invalid's: reported once, there.
      // Stryker disable next-line EqualityOperator: an effective threshold is never 0 (0 is the default, 1).
      if (probe.type === 'readiness' || probe.successThreshold === 1 || probe.successThreshold < 0) continue;
      const pointer = joinPointer(probe.pointer, 'successThreshold');
      report({ messageId: 'notOne', data: { field: probe.field, value: probe.successThreshold }, pointer, fix: [{ op: 'replace', path: pointer, value: 1 }] });
    }
  },
});
