import { defineRule } from '../../src/engine/rule.js';
import { isProbed } from '../../src/model/describe.js';
import { joinPointer } from '../../src/model/pointer.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

export default defineRule({
  meta: {
    id: 'http-probe-host',
    severity: 'warning',
    summary: 'an httpGet.host or tcpSocket.host that points away from the pod',
    fixable: false,
    defaultOptions: {},
  },
  checkContainer({ site, container, probes, report }) {
    if (!isProbed(container.role)) return;
    const hostNetwork = site.spec.hostNetwork === true;
    for (const probe of probes) {
      for (const handler of ['httpGet', 'tcpSocket'] as const) {
        const host = probe.raw[handler]?.host;
        if (typeof host !== 'string' || host === '') continue;
        const loopback = LOOPBACK.has(host.toLowerCase());
        // With hostNetwork the pod shares the node's network, so the node's loopback is the pod's (reference §3).
        if (hostNetwork && loopback) continue;
        const why = loopback
          ? `the kubelet connects from the node, so "${host}" is the node's loopback, not this pod's`
          : `the kubelet connects from the node and resolves "${host}" with the node's resolver (no cluster DNS), so it probes something other than this pod`;
        const advice =
          handler === 'httpGet'
            ? 'Remove host (it defaults to the pod IP); to send a virtual host name, add an httpHeaders entry named Host.'
            : 'Remove host: it defaults to the pod IP.';
        report({ pointer: joinPointer(probe.pointer, handler, 'host'), message: `${probe.field}.${handler}.host is "${host}": ${why}. ${advice}` });
      }
    }
  },
});
