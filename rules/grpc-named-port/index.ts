import { defineRule, joinPointer, PROBED_CONTAINERS, resolvePort } from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'grpc-named-port',
    severity: 'error',
    summary: 'a grpc probe whose port is a name',
    remediation: "Use the port number: a gRPC probe's port is an int32 and cannot name a port.",
    scope: PROBED_CONTAINERS,
    // A string where the API expects an int32 is undecodable: this rule reports it with what to write instead.
    readsUndecodable: true,
    policy: {
      notExpressible:
        'The API server cannot decode a named gRPC port (grpc.port is an int32) and refuses the object before any policy runs, with its own message.',
    },
    messages: {
      named: {
        short: '{field}.grpc.port is {value}, but gRPC ports must be numbers{useShort}',
        long: "{field}.grpc.port is {value}, but a gRPC probe's port is an int32: the API server cannot decode a name there and rejects the object. Use the port number{use}.",
      },
    },
  },
  checkContainer({ container, probes, report }) {
    for (const probe of probes) {
      const port = probe.raw.grpc?.port as unknown;
      if (typeof port !== 'string') continue;
      // The number a kubelet would resolve the name to, had the field taken names.
      const resolved = resolvePort(container.container, port);
      const number = typeof resolved === 'number' ? resolved : undefined;
      report({
        messageId: 'named',
        data: {
          field: probe.field,
          value: JSON.stringify(port),
          use: number === undefined ? '' : ` (${number})`,
          useShort: number === undefined ? '' : `; use ${number}`,
        },
        pointer: joinPointer(probe.pointer, 'grpc', 'port'),
      });
    }
  },
});
