import { defineRule } from '../../src/engine/rule.js';
import { isProbed } from '../../src/model/describe.js';
import { joinPointer } from '../../src/model/pointer.js';

export default defineRule({
  meta: {
    id: 'readiness-termination-grace-period',
    severity: 'error',
    summary: 'terminationGracePeriodSeconds on a readinessProbe, which the API server rejects',
    fixable: true,
    defaultOptions: {},
  },
  checkContainer({ container, probe, report }) {
    if (!isProbed(container.role)) return;
    const readiness = probe('readiness');
    const value = readiness?.raw.terminationGracePeriodSeconds;
    if (readiness === undefined || value === undefined || value === null) return;
    const pointer = joinPointer(readiness.pointer, 'terminationGracePeriodSeconds');
    report({
      pointer,
      message:
        `readinessProbe.terminationGracePeriodSeconds is set (${value}); the API server rejects it ("must not be set for readinessProbes") ` +
        'because a failing readiness probe never kills the container. Remove the field; to shorten kills after a liveness failure, set it on the livenessProbe.',
      fix: [{ op: 'remove', path: pointer }],
    });
  },
});
