import { defineRule } from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'missing-readiness-probe',
    severity: 'info',
    severityNote: 'warning when a Service in the same input selects the pod',
    summary: 'a long-running container without a readinessProbe',
    remediation: 'Add a readinessProbe that checks the app can answer requests.',
    scope: { roles: ['container'], longRunningOnly: true },
    policy: {
      over: 'longRunning',
      problems: `!has(c.readinessProbe) ? ['no readinessProbe: Services send traffic before it can serve; add one'] : []`,
      limits: 'A policy sees one object, never the Services that select it: it always reports the info, never the warning for a selected pod.',
    },
    messages: {
      selected: {
        short: 'no readinessProbe, and Service {services} sends traffic before it can serve; add one',
        long:
          'no readinessProbe: Service {services} sends it traffic as soon as it starts, before it can serve, and keeps sending while it cannot. ' +
          'Add a readinessProbe that checks the app can answer requests.',
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
    if (probe('readiness') !== undefined || site.platform === 'knative') return;
    const namespace = site.resource.object.metadata?.namespace ?? site.podMetadata?.namespace;
    const services = run.servicesSelecting(namespace, site.podMetadata?.labels);
    if (services.length > 0) {
      report({
        messageId: 'selected',
        severity: 'warning',
        data: { services: services.map((service) => `"${service.name}"`).join(', ') },
        pointer: container.pointer,
      });
    } else report({ messageId: 'missing', pointer: container.pointer });
  },
});
