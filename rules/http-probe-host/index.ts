import {
  bind,
  celString,
  defineRule,
  eachProbe,
  ipFamily,
  isLoopback,
  joinPointer,
  PROBED_CONTAINERS,
  unbracket,
  type CelMessages,
} from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'http-probe-host',
    severity: 'warning',
    summary: 'an httpGet.host or tcpSocket.host that points away from the pod',
    remediation: 'Remove host (it defaults to the pod IP); to send a virtual host name with httpGet, add an httpHeaders entry named Host.',
    scope: PROBED_CONTAINERS,
    policy: { over: 'probed', problems: (message) => eachProbe((probe, field) => hostProblems(message, probe, field)) },
    messages: {
      loopback: {
        short: '{field}.{handler}.host "{host}" is the node\'s loopback, not the pod\'s; remove host',
        long: '{field}.{handler}.host is "{host}": the kubelet connects from the node, so "{host}" is the node\'s loopback, not this pod\'s. {advice}',
      },
      address: {
        short: "{field}.{handler}.host {host} is another address than the pod's; remove host",
        long: '{field}.{handler}.host is "{host}": the kubelet connects from the node to that address, not to this pod, so the probe checks something else. {advice}',
      },
      name: {
        short: '{field}.{handler}.host "{host}" is resolved on the node (no cluster DNS); remove host',
        long:
          '{field}.{handler}.host is "{host}": the kubelet connects from the node and resolves the name with the node\'s resolver (no cluster DNS), ' +
          'so it probes something other than this pod, or nothing. {advice}',
      },
    },
  },
  checkContainer({ site, probes, report }) {
    const hostNetwork = site.spec.hostNetwork === true;
    for (const probe of probes) {
      for (const handler of ['httpGet', 'tcpSocket'] as const) {
        const host = probe.raw[handler]?.host;
        if (typeof host !== 'string' || host === '') continue;
        const loopback = isLoopback(host);
        // With hostNetwork the pod shares the node's network: the node's loopback is the pod's.
        if (hostNetwork && loopback) continue;
        // Pod Security Admission's baseline level forbids any probe host from policy version v1.34
        // (pod-security-admission policy/check_hostProbesAndhostLifecycle.go).
        const advice = `${
          handler === 'httpGet'
            ? 'Remove host (it defaults to the pod IP); to send a virtual host name, add an httpHeaders entry named Host.'
            : 'Remove host: it defaults to the pod IP.'
        } Namespaces that enforce Pod Security's baseline or restricted level at v1.34 or later refuse the Pod outright.`;
        const messageId = loopback ? 'loopback' : ipFamily(unbracket(host)) !== 0 ? 'address' : 'name';
        report({ messageId, data: { field: probe.field, handler, host, advice }, pointer: joinPointer(probe.pointer, handler, 'host') });
      }
    }
  },
});

/**
 * The same judgement in CEL: loopback by name, by address (the CEL ip library) or IPv4-mapped; an
 * address; a name. The bare host and whether it is loopback are bound once: written out at each use,
 * the expression was a third of the policies' text, and the API server's type checking grows with
 * the square of an expression's size.
 */
function hostProblems(message: CelMessages<'loopback' | 'address' | 'name'>, probe: string, field: string): string {
  return (['httpGet', 'tcpSocket'] as const)
    .map((handler) => {
      const host = `${probe}.${handler}.host`;
      const bare = `(${host}.startsWith('[') && ${host}.endsWith(']') ? ${host}.substring(1, size(${host}) - 1) : ${host}).lowerAscii()`;
      // CEL's ip() refuses IPv4-mapped addresses, so they are matched as text: dotted (::ffff:127.0.0.1) or hex (::ffff:7f00:1).
      const mapped = `hb.matches('^(?:0{0,4}:){0,5}(?::|0{0,4}:)?ffff:(?:[0-9]+\\\\.[0-9]+\\\\.[0-9]+\\\\.[0-9]+|[0-9a-f]{1,4}:[0-9a-f]{1,4})$')`;
      const loopback = `(hb in ['localhost', 'localhost.'] || (isIP(hb) && ip(hb).isLoopback()) || (${mapped} && hb.matches('ffff:(?:127\\\\.|7f[0-9a-f]{2}:)')))`;
      const address = `(isIP(hb) || ${mapped})`;
      const data = { field: celString(field), handler: celString(handler), host };
      const problems =
        `!(has(variables.spec.hostNetwork) && variables.spec.hostNetwork && hl) ? ` +
        `[hl ? ${message('loopback', data)} : ${address} ? ${message('address', data)} : ${message('name', data)}] : []`;
      return `(has(${probe}.${handler}) && has(${host}) && ${host} != '' ? ${bind('hb', bare, bind('hl', loopback, problems))} : [])`;
    })
    .join(' + ');
}
