import { defineRule, type Report } from '../../src/engine/rule.js';
import { PROBE_NUMBER_FIELDS, type EffectiveProbe } from '../../src/model/effective-probe.js';
import { isProbed } from '../../src/model/describe.js';
import { joinPointer } from '../../src/model/pointer.js';
import { isValidHeaderName, isValidPortName, isValidPortNumber } from '../../src/model/validation.js';

export default defineRule({
  meta: {
    id: 'probe-field-invalid',
    severity: 'error',
    summary: 'a probe field that the API server rejects: negative numbers, bad ports, scheme, header names, empty exec command',
    fixable: false,
    defaultOptions: {},
  },
  checkContainer({ container, probes, report }) {
    if (container.role === 'ephemeral') {
      for (const probe of probes) {
        report({
          pointer: probe.pointer,
          message: `${probe.field} on an ephemeral container; the API server rejects it ("cannot be set for an Ephemeral Container"). Remove it.`,
        });
      }
      return;
    }
    if (!isProbed(container.role)) return;
    for (const probe of probes) checkProbe(probe, report);
  },
});

function checkProbe(probe: EffectiveProbe, report: (report: Report) => void): void {
  const field = (name: string, message: string, ...path: (string | number)[]) =>
    report({ pointer: joinPointer(probe.pointer, ...path), message: `${probe.field}.${name} ${message}` });
  const raw = probe.raw as Record<string, unknown>;

  for (const name of PROBE_NUMBER_FIELDS) {
    const value = raw[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isInteger(value)) field(name, `is ${JSON.stringify(value)}; it must be a whole number of ${name.endsWith('Seconds') ? 'seconds' : 'probes'}.`, name);
    else if (value < 0) field(name, `is ${value}; the API server rejects negative values ("must be greater than or equal to 0"). Use 0 for the default or a positive number.`, name);
  }
  const grace = raw.terminationGracePeriodSeconds;
  if (grace !== undefined && grace !== null && (typeof grace !== 'number' || !Number.isInteger(grace) || grace <= 0)) {
    field('terminationGracePeriodSeconds', `is ${JSON.stringify(grace)}; if set it must be greater than 0 ("must be greater than 0"). Remove it to use the pod's grace period.`, 'terminationGracePeriodSeconds');
  }

  const exec = probe.raw.exec;
  if (exec !== undefined && exec !== null && (!Array.isArray(exec.command) || exec.command.length === 0)) {
    field('exec.command', 'is empty; the API server requires a command. Give the command and its arguments as a list.', 'exec', 'command');
  }

  const http = probe.raw.httpGet;
  if (http !== undefined && http !== null) {
    checkPort(probe, 'httpGet', http.port, field);
    if (http.scheme !== undefined && http.scheme !== 'HTTP' && http.scheme !== 'HTTPS') {
      field('httpGet.scheme', `is ${JSON.stringify(http.scheme)}; the API server accepts exactly "HTTP" or "HTTPS" (upper case).`, 'httpGet', 'scheme');
    }
    (http.httpHeaders ?? []).forEach((header, index) => {
      if (!isValidHeaderName(header?.name)) {
        field(`httpGet.httpHeaders[${index}].name`, `is ${JSON.stringify(header?.name ?? '')}; a header name may only contain letters, digits and '-'.`, 'httpGet', 'httpHeaders', index, 'name');
      }
    });
  }
  const tcp = probe.raw.tcpSocket;
  if (tcp !== undefined && tcp !== null) checkPort(probe, 'tcpSocket', tcp.port, field);
  const grpc = probe.raw.grpc;
  // A named grpc port is its own rule (grpc-named-port); only the number range is checked here.
  if (grpc !== undefined && grpc !== null && typeof grpc.port === 'number' && !isValidPortNumber(grpc.port)) {
    field('grpc.port', `is ${grpc.port}; a port must be between 1 and 65535.`, 'grpc', 'port');
  }
}

function checkPort(probe: EffectiveProbe, handler: 'httpGet' | 'tcpSocket', port: unknown, field: (name: string, message: string, ...path: (string | number)[]) => void): void {
  void probe;
  const name = `${handler}.port`;
  if (port === undefined || port === null) field(name, 'is missing; set the port number or a declared port name.', handler);
  else if (typeof port === 'number') {
    if (!isValidPortNumber(port)) field(name, `is ${port}; a port must be between 1 and 65535.`, handler, 'port');
  } else if (typeof port !== 'string' || !isValidPortName(port)) {
    const hint = typeof port === 'string' && /^\d+$/.test(port) ? ` Write it unquoted (${port}) to use the number.` : '';
    field(name, `is ${JSON.stringify(port)}, which is neither a port number nor a valid port name (at most 15 characters of a-z, 0-9 and '-', with a letter).${hint}`, handler, 'port');
  }
}
