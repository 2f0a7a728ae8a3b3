import { defineRule } from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'missing-readiness-probe',
    severity: 'info',
    severityNote:
      "warning when a Service deployed with it (same directory, chart rendering or kustomization build) selects the pod and sends users' traffic to a port this container serves, or to port numbers no container declares; a Service of metrics ports or of the injected mesh proxy's own carries no users' traffic",
    summary: 'a long-running container without a readinessProbe',
    remediation: 'Add a readinessProbe that checks the app can answer requests.',
    scope: { roles: ['container'], longRunningOnly: true },
    policy: {
      over: 'longRunning',
      problems: (message) => `!has(c.readinessProbe) ? [${message('missing')}] : []`,
      limits: 'A policy sees one object, never the Services that select it: it always reports the info, never the warning for a selected pod.',
      unexpressed: ['selected', 'otherPorts', 'noTraffic', 'notServed'],
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
      noTraffic: {
        short: 'no readinessProbe; {services} carries only {what}, no user traffic',
        long: "no readinessProbe: {services} selects the pod but carries only {what} ({ports}). {why} Add a readinessProbe when a Service sends users' requests to this container.",
      },
      notServed: {
        short: 'no readinessProbe; {services} targets only port names no container declares ({ports})',
        long:
          'no readinessProbe: {services} selects the pod but targets only named ports that no container of the pod declares ({ports}), so it has no ' +
          'endpoint here and sends this container nothing. Fix the targetPort; add a readinessProbe if the container is to serve it.',
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
    // Services whose every port is for metrics, or is the injected mesh proxy's own, carry no user traffic.
    const mesh = injectedMesh(site.podMetadata);
    const proxyOnly = (service: (typeof services)[number]) =>
      mesh !== undefined && service.targetPorts.length > 0 && service.targetPorts.every((port) => mesh.ports.includes(port));
    const traffic = services.filter((service) => !service.metricsOnly && !proxyOnly(service));
    const targeted = traffic.flatMap((service) => service.targetPorts);
    const serves = (ports: readonly { name?: unknown; containerPort?: unknown }[] | undefined) =>
      // Stryker disable next-line ArrayDeclaration: an entry that is no mapping has no port, as the replacement's string has none.
      (ports ?? []).some((port) => port !== null && targeted.some((target) => target === port.containerPort || target === port.name));
    // A targeted port that another container declares, and this one does not: not this container's traffic.
    // (With nothing targeted, no container serves it: the length test only saves the searches.)
    const servedElsewhere =
      // Stryker disable next-line ConditionalExpression,EqualityOperator: with nothing targeted no container serves it; the length test is a shortcut.
      targeted.length > 0 && !serves(container.container.ports) && site.containers.some((other) => other !== container && serves(other.container.ports));
    const ports = (list: readonly (string | number)[]) => [...new Set(list)].join(', ');
    if (servedElsewhere) {
      report({ messageId: 'otherPorts', data: { services: serviceNames(traffic), ports: ports(targeted) }, pointer: container.pointer });
    } else if (traffic.length > 0 && targeted.length > 0 && targeted.every((target) => typeof target === 'string') && !serves(container.container.ports)) {
      // Named target ports resolve only to a declared port: none here, so no endpoint, and no traffic.
      report({ messageId: 'notServed', data: { services: serviceNames(traffic), ports: ports(targeted) }, pointer: container.pointer });
    } else if (traffic.length > 0) {
      report({ messageId: 'selected', severity: 'warning', data: { services: serviceNames(traffic) }, pointer: container.pointer });
    } else if (services.length > 0) {
      const metricsAlone = services.every((service) => service.metricsOnly);
      report({
        messageId: 'noTraffic',
        data: {
          services: serviceNames(services),
          what: metricsAlone ? 'metrics ports' : `metrics ports or the ${mesh!.name} proxy's own`,
          ports: ports(services.flatMap((service) => service.targetPorts)),
          why: metricsAlone
            ? "Prometheus scrapes a pod whether or not it is Ready: an EndpointSlice lists a not-ready endpoint with ready: false, and Prometheus' Kubernetes discovery keeps it."
            : `The ${mesh!.name} proxy the mesh injects answers on its ports itself: the application's readiness does not gate them.`,
        },
        pointer: container.pointer,
      });
    } else report({ messageId: 'missing', pointer: container.pointer });
  },
});

/**
 * The mesh whose proxy is injected into the pod at admission, as the pod's own metadata asks:
 * Istio (`sidecar.istio.io/inject: "true"`, a label or the older annotation) and Linkerd
 * (`linkerd.io/inject: enabled`), with the ports their proxies serve (Istio's admin, merged metrics,
 * health and Envoy metrics; Linkerd's inbound and admin). A namespace's injection label is not
 * in the object, so it is not seen.
 */
function injectedMesh(
  metadata: { labels?: Record<string, string>; annotations?: Record<string, string> } | undefined,
): { name: string; ports: readonly (string | number)[] } | undefined {
  const asked = (key: string) => metadata?.labels?.[key] ?? metadata?.annotations?.[key];
  if (asked('sidecar.istio.io/inject') === 'true') return { name: 'Istio', ports: [15000, 15020, 15021, 15090, 'http-envoy-prom', 'status-port'] };
  if (asked('linkerd.io/inject') === 'enabled') return { name: 'Linkerd', ports: [4143, 4191, 'linkerd-proxy', 'linkerd-admin'] };
  return undefined;
}

/** `Service "a"`, or `each of the Services "a" and "b"`: each Service once, however many renderings of a chart (its ci/ values) hold it. */
function serviceNames(services: readonly { name: string }[]): string {
  const names = [...new Set(services.map((service) => service.name))].map((name) => `"${name}"`);
  if (names.length === 1) return `Service ${names[0]}`;
  return `each of the Services ${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
