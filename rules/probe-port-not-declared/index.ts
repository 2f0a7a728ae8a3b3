import { bind, celString, defineRule, eachProbe, isTemplateParameter, isValidPortName, joinPointer, PROBED_CONTAINERS } from '../../src/rule-api.js';

const CONSEQUENCE = {
  liveness: 'liveness never restarts the container',
  readiness: 'the pod never becomes ready',
  startup: 'the container never counts as started, so liveness and readiness never run',
} as const;

/** When every check fails (a TCP connect to a port nothing serves over TCP). */
const FAILING = {
  liveness: 'the kubelet restarts the container again and again',
  readiness: 'the pod never becomes ready',
  startup: 'the container is killed when its startup budget runs out, again and again',
} as const;

interface DeclaredPort {
  name?: unknown;
  containerPort?: unknown;
  protocol?: unknown;
}

/** The kubelet resolves a named port by name alone, whatever its protocol, then connects over TCP. */
function isTcp(port: DeclaredPort): boolean {
  return port.protocol === undefined || port.protocol === null || port.protocol === 'TCP';
}

export default defineRule({
  meta: {
    id: 'probe-port-not-declared',
    severity: 'error',
    summary: 'a named probe port that no ports[].name of the container declares',
    remediation: 'Name a port the container declares in ports[].name, or use the port number.',
    scope: PROBED_CONTAINERS,
    policy: {
      over: 'probed',
      // The container's port names, and each named port's declarations, are bound once (bind): written
      // out at each use they made the rule's CEL the largest to type-check, which grows with the square
      // of an expression's size.
      problems: (message) =>
        bind(
          'pn',
          '(has(c.ports) ? c.ports.filter(x, has(x.name)).map(x, x.name) : [])',
          eachProbe((probe, field) =>
            (['httpGet', 'tcpSocket'] as const)
              .map((handler) => {
                const port = `${probe}.${handler}.port`;
                // The named port is UDP or SCTP, and no TCP port has its number.
                const udp =
                  `nd.exists(x, has(x.protocol) && x.protocol != 'TCP') && ` +
                  `!c.ports.exists(x, (!has(x.protocol) || x.protocol == 'TCP') && x.containerPort == nd[0].containerPort)`;
                const where = { field: celString(field), handler: celString(handler), port };
                const problems =
                  `!(${port} in pn) ? [${message('notDeclared', { ...where, declaredShort: `(size(pn) > 0 ? 'Declared: ' + pn.join(', ') : 'No port is named')` })}] : ` +
                  `${udp} ? [${message('udp', { ...where, protocol: 'nd[0].protocol' })}] : []`;
                const declared = `(has(c.ports) ? c.ports.filter(y, has(y.name) && y.name == ${port}) : [])`;
                return `(has(${probe}.${handler}) && type(${port}) == string ? ${bind('nd', declared, problems)} : [])`;
              })
              .join(' + '),
          ),
        ),
      limits: 'Knative Services are custom resources the policy does not match; the webhook checks their serving port.',
      unexpressed: ['knative'],
    },
    messages: {
      notDeclared: {
        short: '{field}.{handler}.port "{port}" is not a declared port; the probe never runs. {declaredShort}',
        long:
          '{field}.{handler}.port "{port}" is not declared in the container\'s ports{declared}: the API server accepts it, but the kubelet ' +
          'cannot resolve the name, so every attempt errors and its result is thrown away (Unknown, not Failure; the event reads ' +
          '`port "{port}" not found` from the kubelet of Kubernetes 1.37, `strconv.Atoi: parsing "{port}": invalid syntax` before): ' +
          '{consequence}. Name a declared port or use the number.',
      },
      udp: {
        short: '{field}.{handler}.port "{port}" is a {protocol} port; the kubelet checks over TCP, so every check fails',
        long:
          '{field}.{handler}.port "{port}" names {number}/{protocol}: the kubelet finds a named port by its name whatever its protocol, then ' +
          'connects over TCP, and the container declares no TCP port {number}, so every check fails: {consequence}. Probe a port the ' +
          'container serves over TCP (protocol TCP is the default), or check the {protocol} service with an exec probe.',
      },
      knative: {
        short: '{field}.{handler}.port "{port}" is not the serving port "{serving}"; Knative rejects it',
        long:
          '{field}.{handler}.port "{port}" is not the name of the container\'s serving port ("{serving}"): Knative Serving rejects the revision ' +
          '("Probe port must match container port"). Leave the port out (Knative probes the serving port) or name "{serving}".',
      },
    },
  },
  checkContainer({ site, container, probes, report }) {
    // A port entry or name of another type is undecodable, and a probe naming a port then skips the container.
    // Stryker disable next-line MethodExpression,ArrayDeclaration,ConditionalExpression,LogicalOperator: a port entry that is no mapping is undecodable.
    const ports = (container.container.ports ?? []).filter((port) => port !== null && typeof port === 'object');
    const declared = ports.map((port) => port.name).filter((name): name is string => typeof name === 'string');
    for (const probe of probes) {
      for (const handler of ['httpGet', 'tcpSocket'] as const) {
        const port = probe.raw[handler]?.port as unknown;
        if (typeof port !== 'string' || !isValidPortName(port) || isTemplateParameter(port, site.resource.parameterized)) continue;
        const pointer = joinPointer(probe.pointer, handler, 'port');
        if (site.platform === 'knative') {
          // Knative's serving port is the first declared port, named "http" when it has no name (k8s_validation.go validateContainersPorts).
          const serving = ports[0]?.name || 'http';
          if (port !== serving) report({ messageId: 'knative', data: { field: probe.field, handler, port, serving }, pointer });
          continue;
        }
        if (declared.includes(port)) {
          const named = ports.find((candidate) => candidate.name === port) as DeclaredPort;
          // A port without a number is rejected by the API server (containerPort is required); the schema check says so.
          if (typeof named.containerPort !== 'number') continue;
          // A TCP port is its own twin; a UDP or SCTP port needs a TCP port of the same number.
          const tcpTwin = ports.some((candidate) => isTcp(candidate) && candidate.containerPort === named.containerPort);
          if (!tcpTwin) {
            report({
              messageId: 'udp',
              data: {
                field: probe.field,
                handler,
                port,
                number: String(named.containerPort),
                protocol: String(named.protocol),
                consequence: FAILING[probe.type],
              },
              pointer,
            });
          }
          continue;
        }
        report({
          messageId: 'notDeclared',
          data: {
            field: probe.field,
            handler,
            port,
            declared: declared.length ? ` (declared: ${declared.join(', ')})` : ' (none are named)',
            declaredShort: declared.length ? `Declared: ${declared.join(', ')}` : 'No port is named',
            consequence: CONSEQUENCE[probe.type],
          },
          pointer,
        });
      }
    }
  },
});
