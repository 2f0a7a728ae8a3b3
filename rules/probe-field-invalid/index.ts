import {
  defineRule,
  describeValue,
  isInt32,
  isInt64,
  isTemplateParameter,
  isValidHeaderName,
  isValidPortName,
  isValidPortNumber,
  joinPointer,
  PROBE_NUMBER_FIELDS,
  type DecodeIssue,
  type EffectiveProbe,
  type PodSite,
  type ProbeFeatureGate,
  type Report,
} from '../../src/rule-api.js';

type MessageId =
  | 'undecodable'
  | 'negative'
  | 'gracePeriod'
  | 'emptyCommand'
  | 'emptyProgram'
  | 'portMissing'
  | 'portNumber'
  | 'portName'
  | 'scheme'
  | 'headerName'
  | 'protocol'
  | 'http2Scheme'
  | 'http2Host'
  | 'grpcPort'
  | 'grpcMode'
  | 'ephemeral';

export default defineRule<Record<string, never>, MessageId>({
  meta: {
    id: 'probe-field-invalid',
    severity: 'error',
    summary:
      'a probe value the API server cannot decode or rejects (wrong types, negative numbers, bad ports, scheme, header names, gated fields), or an exec command with no program',
    remediation: 'Change the value to what the field accepts; the message names the field and the accepted values.',
    scope: { roles: ['container', 'sidecar', 'ephemeral'] },
    readsUndecodable: true,
    policy: {
      notExpressible:
        "Every value it reports is one the API server cannot decode or its validation refuses: such objects are refused before validating policies run, with the API server's own message.",
    },
    messages: {
      undecodable: {
        short: '{path} is {value}, not {expected}: the API server cannot decode the object',
        long:
          '{path} is {value}, but the field is {expected}: the API server cannot decode the object and rejects it ' +
          '("cannot unmarshal … into Go struct field"). Write {expected}{hint}.',
      },
      negative: {
        short: '{field}.{name} is {value}; negative values are rejected. Use 0 (default) or more',
        long: '{field}.{name} is {value}; the API server rejects negative values ("must be greater than or equal to 0"). Use 0 for the default or a positive number.',
      },
      gracePeriod: {
        short: '{field}.terminationGracePeriodSeconds is {value}; if set it must be above 0',
        long: '{field}.terminationGracePeriodSeconds is {value}; if set it must be greater than 0 ("must be greater than 0"). Remove it to use the pod\'s grace period.',
      },
      emptyCommand: {
        short: '{field}.exec.command is empty and is rejected; give the command as a list',
        long: '{field}.exec.command is empty; the API server requires a command ("Required value"). Give the command and its arguments as a list.',
      },
      emptyProgram: {
        short: '{field}.exec.command[0] is empty: no program runs, every check errors and counts for nothing',
        long:
          '{field}.exec.command[0] is "": the API server accepts it, but the container runtime finds no program to run, so every check errors ' +
          '("probe errored") and the kubelet throws the result away: a readiness probe never passes, a liveness or startup probe never acts. ' +
          'Give the program to run as the first item.',
      },
      portMissing: {
        short: '{field}.{handler}.port is missing and is rejected; set a port number or name',
        long: '{field}.{handler}.port is missing; the API server rejects port 0 ("must be between 1 and 65535, inclusive"). Set the port number or a declared port name.',
      },
      portNumber: {
        short: '{field}.{handler}.port is {value}; a port must be 1 to 65535',
        long: '{field}.{handler}.port is {value}; the API server rejects it ("must be between 1 and 65535, inclusive").',
      },
      portName: {
        short: '{field}.{handler}.port {value} is not a valid port name or number',
        long:
          "{field}.{handler}.port is {value}, which is neither a port number nor a valid port name (at most 15 characters of a-z, 0-9 and '-', " +
          "with a letter, no leading, trailing or double '-'); the API server rejects it.{hint}",
      },
      scheme: {
        short: '{field}.httpGet.scheme is {value}; only "HTTP" or "HTTPS" are accepted',
        long: '{field}.httpGet.scheme is {value}; the API server accepts exactly "HTTP" or "HTTPS" (upper case), or nothing for HTTP.',
      },
      headerName: {
        short: "{field}.httpGet.httpHeaders[{index}].name {value} is invalid; use letters, digits, '-'",
        long: "{field}.httpGet.httpHeaders[{index}].name is {value}; the API server accepts only letters, digits and '-' in a header name.",
      },
      protocol: {
        short: '{field}.httpGet.protocol is {value}; only "HTTP1" or "HTTP2" are accepted',
        long: '{field}.httpGet.protocol is {value}; where its gate (H2CContainerProbe) is on, the API server accepts exactly "HTTP1" or "HTTP2" and rejects the rest (where it is off, it drops the field).',
      },
      http2Scheme: {
        short: '{field}.httpGet.protocol HTTP2 is only accepted with scheme HTTP (h2c); remove protocol or use HTTP',
        long:
          '{field}.httpGet.protocol is HTTP2 with scheme HTTPS; where its gate (H2CContainerProbe) is on, the API server rejects it ("is only ' +
          'supported with HTTP (H2C)"): the probe speaks HTTP/2 only in cleartext. Use scheme HTTP, or leave protocol out for HTTPS.',
      },
      http2Host: {
        short: '{field}.httpGet.host must be empty with protocol HTTP2; remove host',
        long: '{field}.httpGet.host is set with protocol HTTP2; where its gate (H2CContainerProbe) is on, the API server rejects it ("must be empty when `protocol` is "HTTP2""). Remove host.',
      },
      grpcPort: {
        short: '{field}.grpc.port is {value}; a port must be 1 to 65535',
        long: '{field}.grpc.port is {value}; a gRPC probe needs its port number, and the API server rejects {value} ("must be between 1 and 65535, inclusive"). Set the port number.',
      },
      grpcMode: {
        short: '{field}.grpc.mode is {value}; only "Plaintext" or "TLS" are accepted',
        long: '{field}.grpc.mode is {value}; where its gate (GRPCContainerProbeTLS) is on, the API server accepts exactly "Plaintext" or "TLS" and rejects the rest (where it is off, it drops the field).',
      },
      ephemeral: {
        short: '{field} on an ephemeral container is rejected; remove it',
        long: '{field} on an ephemeral container; the API server rejects it ("cannot be set for an Ephemeral Container"). Remove it.',
      },
    },
  },
  checkPodSite({ decodeIssues, report }) {
    for (const issue of decodeIssues) reportUndecodable(issue, report);
  },
  checkContainer({ site, container, probes, gatesOn, report }) {
    for (const issue of container.decodeIssues) reportUndecodable(issue, report);
    if (container.role === 'ephemeral') {
      for (const probe of probes) report({ messageId: 'ephemeral', data: { field: probe.field }, pointer: probe.pointer });
      return;
    }
    for (const probe of probes) checkProbe(probe, site, gatesOn, report);
  },
});

/** A gRPC port written as a name is reported by grpc-named-port, which says what to write instead. */
function reportUndecodable(issue: DecodeIssue, report: (report: Report<MessageId>) => void): void {
  // Stryker disable next-line Regex: a decode issue's pointer ends at the field, so "/grpc/port" can only come last.
  if (typeof issue.value === 'string' && /\/grpc\/port$/.test(issue.pointer)) return;
  const hint =
    typeof issue.value === 'boolean'
      ? ' (quote the word if it is meant as text)'
      : typeof issue.value === 'string' && /^-?\d+$/.test(issue.value)
        ? ` (unquoted: ${issue.value})`
        : '';
  report({ messageId: 'undecodable', data: { path: issue.path, value: describeValue(issue.value), expected: issue.expected, hint }, pointer: issue.pointer });
}

function checkProbe(probe: EffectiveProbe, site: PodSite, gatesOn: ReadonlySet<ProbeFeatureGate>, report: (report: Report<MessageId>) => void): void {
  const raw = probe.raw as Record<string, unknown>;
  const field = probe.field;
  const at = (...path: (string | number)[]) => joinPointer(probe.pointer, ...path);

  for (const name of PROBE_NUMBER_FIELDS) {
    const value = raw[name];
    if (isInt32(value) && value < 0) report({ messageId: 'negative', data: { field, name, value }, pointer: at(name) });
  }
  const grace = raw.terminationGracePeriodSeconds;
  if (isInt64(grace) && grace <= 0) report({ messageId: 'gracePeriod', data: { field, value: grace }, pointer: at('terminationGracePeriodSeconds') });

  const exec = probe.raw.exec;
  if (exec !== undefined && exec !== null && (!Array.isArray(exec.command) || exec.command.length === 0)) {
    report({ messageId: 'emptyCommand', data: { field }, pointer: at('exec', 'command') });
  } else if (exec?.command?.[0] === '') {
    // Accepted by validation (only an empty list is refused); runc then has no program to start, the
    // CRI call errors, and the kubelet throws an errored result away (prober.go probe, worker.go doProbe).
    report({ messageId: 'emptyProgram', data: { field }, pointer: at('exec', 'command', 0) });
  }

  const knative = site.platform === 'knative';
  for (const handler of ['httpGet', 'tcpSocket'] as const) {
    const action = probe.raw[handler];
    if (action === undefined || action === null) continue;
    const port = action.port as unknown;
    // Knative fills in the container's serving port when a probe leaves it out.
    if (port === undefined || port === null || port === 0) {
      if (!knative)
        report({
          messageId: port === 0 ? 'portNumber' : 'portMissing',
          data: { field, handler, value: 0 },
          // A port that is not written is found at its handler.
          pointer: at(handler, 'port'),
        });
    } else if (isInt32(port)) {
      if (!isValidPortNumber(port)) report({ messageId: 'portNumber', data: { field, handler, value: port }, pointer: at(handler, 'port') });
    } else if (typeof port === 'string' && !isValidPortName(port) && !isTemplateParameter(port, site.resource.parameterized)) {
      const hint = /^\d+$/.test(port) ? ` Write it unquoted (${port}) to use the number.` : '';
      report({ messageId: 'portName', data: { field, handler, value: JSON.stringify(port), hint }, pointer: at(handler, 'port') });
    }
  }

  const http = probe.raw.httpGet;
  if (http !== undefined && http !== null) {
    // An empty scheme is defaulted to HTTP before validation (SetDefaults_HTTPGetAction).
    if (typeof http.scheme === 'string' && http.scheme !== '' && http.scheme !== 'HTTP' && http.scheme !== 'HTTPS') {
      report({ messageId: 'scheme', data: { field, value: JSON.stringify(http.scheme) }, pointer: at('httpGet', 'scheme') });
    }
    // Stryker disable next-line ArrayDeclaration: an entry that is not a mapping is skipped, as the replacement's string is.
    (http.httpHeaders ?? []).forEach((header, index) => {
      // A null entry decodes as a header with no name, which the API server refuses; an entry or a name
      // that is neither (a string, a number) is an undecodable value, reported above.
      if (typeof header !== 'object') return;
      const name = header?.name ?? '';
      if (typeof name === 'string' && !isValidHeaderName(name)) {
        report({
          messageId: 'headerName',
          data: { field, index, value: JSON.stringify(name) },
          pointer: at('httpGet', 'httpHeaders', index, 'name'),
        });
      }
    });
  }

  // Gated fields (k8s.io/api v0.37, newer than the types this is built on): validated as the API server
  // validates them where the gate is on (validateHTTPGetAction, validateGRPCAction); where it is off
  // the field is dropped before validation (pkg/api/pod/util.go) and probe-alpha-field says it is gated.
  const gated = probe.raw as { httpGet?: { protocol?: unknown; scheme?: unknown; host?: unknown } | null; grpc?: { mode?: unknown } | null };
  const protocol = gated.httpGet?.protocol;
  if (typeof protocol === 'string' && gatesOn.has('H2CContainerProbe')) {
    if (protocol !== 'HTTP1' && protocol !== 'HTTP2')
      report({ messageId: 'protocol', data: { field, value: JSON.stringify(protocol) }, pointer: at('httpGet', 'protocol') });
    else if (protocol === 'HTTP2' && gated.httpGet?.scheme === 'HTTPS')
      report({ messageId: 'http2Scheme', data: { field }, pointer: at('httpGet', 'protocol') });
    else if (protocol === 'HTTP2' && typeof gated.httpGet?.host === 'string' && gated.httpGet.host !== '')
      report({ messageId: 'http2Host', data: { field }, pointer: at('httpGet', 'host') });
  }
  const mode = gated.grpc?.mode;
  if (typeof mode === 'string' && gatesOn.has('GRPCContainerProbeTLS') && mode !== 'Plaintext' && mode !== 'TLS')
    report({ messageId: 'grpcMode', data: { field, value: JSON.stringify(mode) }, pointer: at('grpc', 'mode') });

  const grpc = probe.raw.grpc;
  // A missing or null gRPC port is port 0, which validateGRPCAction rejects; a named one is grpc-named-port's.
  if (
    grpc !== undefined &&
    grpc !== null &&
    (grpc.port === undefined || grpc.port === null || isInt32(grpc.port)) &&
    !(knative && (grpc.port === undefined || grpc.port === null)) &&
    !isValidPortNumber(grpc.port ?? 0)
  ) {
    report({ messageId: 'grpcPort', data: { field, value: grpc.port ?? 0 }, pointer: at('grpc', 'port') });
  }
}
