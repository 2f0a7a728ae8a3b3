import { defineRule } from '../../src/engine/rule.js';

export default defineRule({
  meta: {
    id: 'missing-readiness-probe',
    severity: 'info',
    summary: 'a long-running container without a readinessProbe (warning when a Service in the input selects the pod)',
    fixable: false,
    defaultOptions: {},
  },
  checkContainer({ site, container, probe, run, report }) {
    if (container.role !== 'container' || !site.longRunning || probe('readiness') !== undefined) return;
    const namespace = site.resource.object.metadata?.namespace ?? site.podMetadata?.namespace;
    const services = run.servicesSelecting(namespace, site.podMetadata?.labels);
    const traffic = services.length
      ? `Service ${services.map((service) => `"${service.name}"`).join(', ')} sends it traffic as soon as it starts, before it can serve, and keeps sending while it cannot`
      : 'any Service that selects the pod sends it traffic as soon as it starts, before it can serve, and keeps sending while it cannot';
    report({
      pointer: container.pointer,
      severity: services.length ? 'warning' : 'info',
      message: `no readinessProbe: ${traffic}. Add a readinessProbe that checks the app can answer requests.`,
    });
  },
});
