import { defineRule } from '../../src/engine/rule.js';
import { isProbed } from '../../src/model/describe.js';
import { joinPointer } from '../../src/model/pointer.js';

export default defineRule({
  meta: {
    id: 'success-threshold-not-one',
    severity: 'error',
    summary: 'successThreshold other than 1 on a liveness or startup probe, which the API server rejects',
    fixable: true,
    defaultOptions: {},
  },
  checkContainer({ container, probes, report }) {
    if (!isProbed(container.role)) return;
    for (const probe of probes) {
      if (probe.type === 'readiness' || probe.successThreshold === 1) continue;
      const pointer = joinPointer(probe.pointer, 'successThreshold');
      report({
        pointer,
        message:
          `${probe.field}.successThreshold is ${probe.successThreshold}; the API server rejects any value but 1 for liveness and startup probes ("must be 1"): ` +
          'one success already means the container is alive or started. Set it to 1 (only readinessProbe may require several successes).',
        fix: [{ op: 'replace', path: pointer, value: 1 }],
      });
    }
  },
});
