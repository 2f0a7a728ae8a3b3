import { defineRule } from '../../src/engine/rule.js';
import { isProbed } from '../../src/model/describe.js';
import { joinPointer } from '../../src/model/pointer.js';
import { isValidPortName } from '../../src/model/validation.js';

const CONSEQUENCE = {
  liveness: 'liveness never restarts the container',
  readiness: 'the pod never becomes ready',
  startup: 'the container never counts as started, so liveness and readiness never run',
} as const;

export default defineRule({
  meta: {
    id: 'probe-port-not-declared',
    severity: 'error',
    summary: 'a named probe port that no ports[].name of the container declares',
    fixable: false,
    defaultOptions: {},
  },
  checkContainer({ container, probes, report }) {
    if (!isProbed(container.role)) return;
    const declared = (container.container.ports ?? []).map((port) => port?.name).filter((name): name is string => typeof name === 'string');
    for (const probe of probes) {
      for (const handler of ['httpGet', 'tcpSocket'] as const) {
        const port = probe.raw[handler]?.port as unknown;
        if (typeof port !== 'string' || !isValidPortName(port) || declared.includes(port)) continue;
        report({
          pointer: joinPointer(probe.pointer, handler, 'port'),
          message:
            `${probe.field}.${handler}.port "${port}" is not declared in the container's ports` +
            `${declared.length ? ` (declared: ${declared.join(', ')})` : ' (none are named)'}: the API server accepts it, but the kubelet ` +
            `discards every attempt ("port not found"), so ${CONSEQUENCE[probe.type]}. Name a declared port or use the number.`,
        });
      }
    }
  },
});
