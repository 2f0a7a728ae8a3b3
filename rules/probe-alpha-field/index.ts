import { defineRule, joinPointer, PROBED_CONTAINERS } from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'probe-alpha-field',
    severity: 'warning',
    summary: 'a probe field that takes effect only where an alpha feature gate is on (httpGet.protocol HTTP2, grpc.mode TLS)',
    remediation:
      'Turn the gate on in the API server and the kubelets (and list it in the config under cluster.featureGates), or leave the field out and serve the probe the way the default speaks.',
    scope: PROBED_CONTAINERS,
    policy: {
      notExpressible:
        'Where the gate is off the API server drops the field before any admission policy sees the object, and where it is on the field works: there is nothing left to warn of at admission.',
    },
    messages: {
      http2: {
        short: '{field}.httpGet.protocol HTTP2 works only with the alpha H2CContainerProbe gate on; elsewhere the probe speaks HTTP/1.1',
        long:
          '{field}.httpGet.protocol is HTTP2, which needs the H2CContainerProbe feature gate (alpha in Kubernetes 1.37, off by default) on the API ' +
          'server and the kubelet. Where it is off, the API server drops the field without a word and the probe speaks HTTP/1.1: a server that ' +
          'speaks only h2c fails every check. Turn the gate on (and list it in the config under cluster.featureGates), or serve the probe over HTTP/1.1.',
      },
      grpcTls: {
        short: '{field}.grpc.mode TLS works only with the alpha GRPCContainerProbeTLS gate on; elsewhere the probe is plaintext',
        long:
          '{field}.grpc.mode is TLS, which needs the GRPCContainerProbeTLS feature gate (alpha in Kubernetes 1.37, off by default). Where it is ' +
          'off, the API server drops the field without a word and the probe connects in plaintext: a gRPC server that accepts only TLS fails every ' +
          'check. Turn the gate on (and list it in the config under cluster.featureGates), or serve the health service in plaintext.',
      },
    },
  },
  checkContainer({ probes, gatesOn, report }) {
    for (const probe of probes) {
      // Fields newer than the API types this is built on (k8s.io/api v0.37: HTTPGetAction.Protocol, GRPCAction.Mode).
      const { httpGet, grpc } = probe.raw as { httpGet?: { protocol?: unknown } | null; grpc?: { mode?: unknown } | null };
      if (httpGet?.protocol === 'HTTP2' && !gatesOn.has('H2CContainerProbe'))
        report({ messageId: 'http2', data: { field: probe.field }, pointer: joinPointer(probe.pointer, 'httpGet', 'protocol') });
      if (grpc?.mode === 'TLS' && !gatesOn.has('GRPCContainerProbeTLS'))
        report({ messageId: 'grpcTls', data: { field: probe.field }, pointer: joinPointer(probe.pointer, 'grpc', 'mode') });
    }
  },
});
