import { defineRule } from '../../src/engine/rule.js';
import { isProbed } from '../../src/model/describe.js';
import { joinPointer } from '../../src/model/pointer.js';

export default defineRule({
  meta: {
    id: 'probe-handler-count',
    severity: 'error',
    summary: 'a probe that does not set exactly one of exec, httpGet, tcpSocket or grpc',
    fixable: false,
    defaultOptions: {},
  },
  checkContainer({ container, probes, report }) {
    if (!isProbed(container.role)) return;
    for (const probe of probes) {
      const kinds = probe.handlerKinds;
      if (kinds.length === 0) {
        report({
          pointer: probe.pointer,
          message: `${probe.field} has no handler; the API server rejects it ("must specify a handler type"). Set exactly one of exec, httpGet, tcpSocket or grpc.`,
        });
      } else if (kinds.length > 1) {
        report({
          pointer: joinPointer(probe.pointer, kinds[1]!),
          message: `${probe.field} sets ${kinds.length} handlers (${kinds.join(', ')}); the API server rejects all but one ("may not specify more than 1 handler type"). Keep only the check you mean.`,
        });
      }
    }
  },
});
