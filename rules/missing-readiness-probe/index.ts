import { defineRule } from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'missing-readiness-probe',
    severity: 'info',
    severityNote:
      'warning when a Service deployed with it (same directory, chart rendering or kustomization build) selects the pod and sends to a port this container serves, or to ports no container declares',
    summary: 'a long-running container without a readinessProbe',
    remediation: 'Add a readinessProbe that checks the app can answer requests.',
    scope: { roles: ['container'], longRunningOnly: true },
    policy: {
      over: 'longRunning',
      problems: (message) => `!has(c.readinessProbe) ? [${message('missing')}] : []`,
      limits: 'A policy sees one object, never the Services that select it: it always reports the info, never the warning for a selected pod.',
      unexpressed: ['selected', 'otherPorts'],
    },
    messages: {
      selected: {
        short: 'no readinessProbe, and {services} sends traffic before it can serve; add one',
        long:
          'no readinessProbe: {services} sends it traffic as soon as it starts, before it can serve, and keeps sending while it cannot. ' +
          'Add a readinessProbe that checks the app can answer requests.',
      },
      otherPorts: {
        short: "no readinessProbe; {services} sends only to other containers' ports ({ports})",
        long:
          'no readinessProbe: {services} selects the pod but sends only to ports that other containers declare ({ports}), so this ' +
          "container (a metrics exporter, a config reloader) takes no Service traffic; the pod turns not-ready only by those containers' " +
          'probes. Add a readinessProbe only if the pod should leave its Services when this container cannot work.',
      },
      missing: {
        short: 'no readinessProbe: Services send traffic before it can serve; add one',
        long:
          'no readinessProbe: any Service that selects the pod sends it traffic as soon as it starts, before it can serve, and keeps sending while it cannot. ' +
          'Add a readinessProbe that checks the app can answer requests.',
      },
    },
  },
  checkContainer({ site, container, probe, run, report }) {
    // Knative Serving gives a container without one a TCP readiness probe on its serving port.
    // KubeRay adds one to the Ray container of each group when it has none.
    if (probe('readiness') !== undefined || site.platform === 'knative' || container.probesAddedBy !== undefined) return;
    const namespace = site.resource.object.metadata?.namespace ?? site.podMetadata?.namespace;
    const services = run.servicesSelecting(namespace, site.podMetadata?.labels, site.resource.origin);
    const targeted = services.flatMap((service) => service.targetPorts);
    const serves = (ports: readonly { name?: unknown; containerPort?: unknown }[] | undefined) =>
      // Stryker disable next-line ArrayDeclaration: an entry that is no mapping has no port, as the replacement's string has none.
      (ports ?? []).some((port) => port !== null && targeted.some((target) => target === port.containerPort || target === port.name));
    // A targeted port that another container declares, and this one does not: not this container's traffic.
    // (With nothing targeted, no container serves it: the length test only saves the searches.)
    const servedElsewhere =
      // Stryker disable next-line ConditionalExpression,EqualityOperator: with nothing targeted no container serves it; the length test is a shortcut.
      targeted.length > 0 && !serves(container.container.ports) && site.containers.some((other) => other !== container && serves(other.container.ports));
    if (servedElsewhere) {
      report({
        messageId: 'otherPorts',
        data: { services: serviceNames(services), ports: [...new Set(targeted)].join(', ') },
        pointer: container.pointer,
      });
    } else if (services.length > 0) {
      report({
        messageId: 'selected',
        severity: 'warning',
        data: { services: serviceNames(services) },
        pointer: container.pointer,
      });
    } else report({ messageId: 'missing', pointer: container.pointer });
  },
});

/** `Service "a"`, or `each of the Services "a" and "b"`: each Service once, however many renderings of a chart (its ci/ values) hold it. */
function serviceNames(services: readonly { name: string }[]): string {
  const names = [...new Set(services.map((service) => service.name))].map((name) => `"${name}"`);
  if (names.length === 1) return `Service ${names[0]}`;
  return `each of the Services ${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
