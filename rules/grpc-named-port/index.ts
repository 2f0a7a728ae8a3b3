import { defineRule } from '../../src/engine/rule.js';
import { isProbed } from '../../src/model/describe.js';
import { joinPointer } from '../../src/model/pointer.js';

export default defineRule({
  meta: {
    id: 'grpc-named-port',
    severity: 'error',
    summary: 'a grpc probe whose port is not a number',
    fixable: false,
    defaultOptions: {},
  },
  checkContainer({ container, probes, report }) {
    if (!isProbed(container.role)) return;
    for (const probe of probes) {
      const port = probe.raw.grpc?.port as unknown;
      if (probe.raw.grpc === undefined || port === undefined || typeof port === 'number') continue;
      const declared = (container.container.ports ?? []).find((candidate) => candidate?.name === port);
      report({
        pointer: joinPointer(probe.pointer, 'grpc', 'port'),
        message:
          `${probe.field}.grpc.port is ${JSON.stringify(port)}, but a gRPC probe's port is an int32: the API server rejects a named port. ` +
          `Use the port number${declared?.containerPort ? ` (${declared.containerPort})` : ''}.`,
      });
    }
  },
});
