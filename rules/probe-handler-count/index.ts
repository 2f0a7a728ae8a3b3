import { defineRule, joinPointer, PROBED_CONTAINERS } from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'probe-handler-count',
    severity: 'error',
    summary: 'a probe that does not set exactly one of exec, httpGet, tcpSocket or grpc',
    remediation: 'Set exactly one of exec, httpGet, tcpSocket or grpc on the probe.',
    scope: PROBED_CONTAINERS,
    policy: {
      notExpressible: "The API server's validation refuses a probe without exactly one handler before validating policies run.",
    },
    messages: {
      none: {
        short: '{field} has no handler and is rejected; set one of exec, httpGet, tcpSocket, grpc',
        long: '{field} has no handler; the API server rejects it ("must specify a handler type"). Set exactly one of exec, httpGet, tcpSocket or grpc.',
      },
      many: {
        short: '{field} sets {count} handlers ({kinds}) and is rejected; keep one',
        long: '{field} sets {count} handlers ({kinds}); the API server rejects all but one ("may not specify more than 1 handler type"). Keep only the check you mean.',
      },
    },
  },
  checkContainer({ probes, report }) {
    for (const probe of probes) {
      const kinds = probe.handlerKinds;
      if (kinds.length === 0) report({ messageId: 'none', data: { field: probe.field }, pointer: probe.pointer });
      else if (kinds.length > 1) {
        report({
          messageId: 'many',
          data: { field: probe.field, count: kinds.length, kinds: kinds.join(', ') },
          pointer: joinPointer(probe.pointer, kinds[1]!),
        });
      }
    }
  },
});
