import { densityOf } from '../../src/engine/cluster-facts.js';
import { defineRule } from '../../src/engine/rule.js';
import { isProbed, secondsText } from '../../src/model/describe.js';
import { joinPointer } from '../../src/model/pointer.js';

export default defineRule({
  meta: {
    id: 'exec-probe-dense-cluster',
    severity: 'warning',
    summary: 'an exec probe more frequent than minPeriodSeconds; warning on dense clusters, info when density is unknown',
    fixable: false,
    defaultOptions: { minPeriodSeconds: 10 },
  },
  checkContainer({ container, probes, options, cluster, report }) {
    if (!isProbed(container.role)) return;
    const density = densityOf(cluster);
    if (density === 'sparse') return;
    for (const probe of probes) {
      if (probe.handlerKind !== 'exec' || probe.periodSeconds >= options.minPeriodSeconds) continue;
      const podsPerNode = cluster.podsPerNode ?? cluster.densePodsPerNode;
      const forks = formatRate(podsPerNode / probe.periodSeconds);
      const load =
        density === 'dense'
          ? `at ${podsPerNode} pods per node with probes like this, that is about ${forks} forks/s per node`
          : `in a dense cluster (${podsPerNode}+ pods per node) with probes like this, that is ${forks}+ forks/s per node`;
      const hint = density === 'dense' ? '' : ' (Set cluster.podsPerNode or --pods-per-node to know the density.)';
      report({
        pointer: joinPointer(probe.pointer, 'exec'),
        severity: density === 'dense' ? 'warning' : 'info',
        message:
          `${probe.field} runs an exec command every ${secondsText(probe, 'periodSeconds')} (below ${options.minPeriodSeconds} s): ` +
          `each run makes the container runtime start a process in the container; ${load}, which costs node CPU and slows the kubelet. ` +
          `Use httpGet, tcpSocket or grpc, or set periodSeconds to ${options.minPeriodSeconds} or more.${hint}`,
      });
    }
  },
});

function formatRate(rate: number): string {
  return rate >= 10 ? String(Math.round(rate)) : rate.toFixed(1).replace(/\.0$/, '');
}
