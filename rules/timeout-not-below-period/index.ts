import { defineRule, type PatchOperation } from '../../src/engine/rule.js';
import { countText, failureConsequence, isProbed, product, secondsText } from '../../src/model/describe.js';
import { joinPointer } from '../../src/model/pointer.js';

export default defineRule({
  meta: {
    id: 'timeout-not-below-period',
    severity: 'warning',
    summary: 'a probe whose effective timeoutSeconds is at or above its effective periodSeconds',
    fixable: true,
    defaultOptions: {},
  },
  checkContainer({ container, probes, report }) {
    if (!isProbed(container.role)) return;
    for (const probe of probes) {
      if (probe.timeoutSeconds < probe.periodSeconds) continue;
      const interval = Math.max(probe.periodSeconds, probe.timeoutSeconds);
      // The kubelet runs one probe at a time and never retries a timed-out one (reference §2),
      // so a hanging check stretches every interval to the timeout.
      const fix: PatchOperation[] | undefined =
        probe.periodSeconds >= 2 ? [{ op: 'add', path: joinPointer(probe.pointer, 'timeoutSeconds'), value: probe.periodSeconds - 1 }] : undefined;
      report({
        pointer: joinPointer(probe.pointer, probe.raw.timeoutSeconds === undefined ? 'periodSeconds' : 'timeoutSeconds'),
        message:
          `${probe.field} timeoutSeconds ${secondsText(probe, 'timeoutSeconds')} is not below periodSeconds ${secondsText(probe, 'periodSeconds')}: ` +
          `probes never overlap and a timed-out one is not retried, so a hanging check delays the next one: ${failureConsequence(probe)} after ` +
          `failureThreshold ${countText(probe, 'failureThreshold')} × max(period, timeout) = ${product(probe.failureThreshold, interval)}` +
          (interval > probe.periodSeconds ? `, not the ${product(probe.failureThreshold, probe.periodSeconds)} the period suggests. ` : ', with no pause between probes. ') +
          (fix ? `Set timeoutSeconds below the period (e.g. ${probe.periodSeconds - 1}).` : 'Raise periodSeconds above the timeout.'),
        ...(fix ? { fix } : {}),
      });
    }
  },
});
