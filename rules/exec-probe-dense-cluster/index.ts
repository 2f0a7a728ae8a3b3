import {
  bind,
  celString,
  DEFAULT_DENSE_PODS_PER_NODE,
  defineRule,
  densityOf,
  eachProbe,
  effective,
  intOption,
  ruleOption,
  joinPointer,
  PROBED_CONTAINERS,
  secondsText,
  type CelMessages,
} from '../../src/rule-api.js';

interface Options {
  minPeriodSeconds: number;
}

const rule = defineRule<Options>({
  meta: {
    id: 'exec-probe-dense-cluster',
    severity: 'info',
    severityNote: 'warning when the cluster is known to be dense; nothing when it is known to be sparse',
    summary: 'an exec probe more frequent than minPeriodSeconds, by cluster density',
    remediation: 'Use an httpGet, tcpSocket or grpc check, or set periodSeconds to minPeriodSeconds or more.',
    scope: PROBED_CONTAINERS,
    options: {
      defaults: { minPeriodSeconds: 10 },
      schema: { minPeriodSeconds: { type: 'integer', minimum: 1, description: 'Exec probes more frequent than this are flagged.' } },
    },
    policy: {
      over: 'probed',
      // Admission warnings only ever show the dense case: the policy reports it when the parameters
      // give pods per node at or above the threshold (the webhook reads live density instead).
      severity: 'warning',
      // The parameters are read once per container, not once per probe: the API server's type
      // checking grows with the square of an expression's size.
      problems: (message) => bind('ppn', "int(params.data[?'podsPerNode'].orValue('0'))", `ppn >= ${DENSE} ? ${execProblems(message, 'dense', 'ppn')} : []`),
      // Without the cluster's density in the parameters, an info, as the engine says it offline.
      infoProblems: (message) => `!has(params.data.podsPerNode) ? ${bind('ppn', DENSE, execProblems(message, 'unknownDensity', 'ppn'))} : []`,
      limits: "The webhook reads the cluster's density live; the policy reads cluster.podsPerNode from its parameters.",
    },
    messages: {
      dense: {
        short: '{field} forks a process every {period} s (~{forks}/s per node at {podsPerNode} pods/node); use httpGet/tcpSocket/grpc or period ≥ {min} s',
        long:
          '{field} runs an exec command every {periodText} (below {min} s): each run makes the container runtime start a process in the container; ' +
          'at {podsPerNode} pods per node with probes like this, that is about {forks} forks/s per node, which costs node CPU and slows the kubelet. ' +
          'Use httpGet, tcpSocket or grpc, or set periodSeconds to {min} or more.',
      },
      unknownDensity: {
        short: '{field} forks a process every {period} s, costly on dense nodes; use httpGet/tcpSocket/grpc or period ≥ {min} s',
        long:
          '{field} runs an exec command every {periodText} (below {min} s): each run makes the container runtime start a process in the container; ' +
          'in a dense cluster ({podsPerNode}+ pods per node) with probes like this, that is {forks}+ forks/s per node, which costs node CPU and slows the kubelet. ' +
          'Use httpGet, tcpSocket or grpc, or set periodSeconds to {min} or more. (Set cluster.podsPerNode or --pods-per-node to know the density.)',
      },
    },
  },
  checkContainer({ timedProbes, options, cluster, report }) {
    const density = densityOf(cluster);
    if (density === 'sparse') return;
    for (const probe of timedProbes) {
      if (probe.handlerKind !== 'exec' || probe.periodSeconds >= options.minPeriodSeconds) continue;
      const podsPerNode = cluster.podsPerNode ?? cluster.densePodsPerNode;
      report({
        messageId: density === 'dense' ? 'dense' : 'unknownDensity',
        severity: density === 'dense' ? 'warning' : 'info',
        data: {
          field: probe.field,
          period: probe.periodSeconds,
          periodText: secondsText(probe, 'periodSeconds'),
          min: options.minPeriodSeconds,
          podsPerNode,
          forks: formatRate(podsPerNode / probe.periodSeconds),
        },
        pointer: joinPointer(probe.pointer, 'exec'),
      });
    }
  },
});
export default rule;

const DENSE = intOption('cluster', 'densePodsPerNode', DEFAULT_DENSE_PODS_PER_NODE);

/** CEL: the message for each exec probe of container `c` more frequent than the option, at `ppn` pods per node. */
function execProblems(message: CelMessages<'dense' | 'unknownDensity'>, id: 'dense' | 'unknownDensity', ppn: string): string {
  return bind(
    'mn',
    ruleOption(rule.meta, 'minPeriodSeconds'),
    eachProbe((probe, field) => {
      // The engine's rate (formatRate), in tenths: one decimal below 10 per second, whole above.
      const rate = `(t >= 100 ? string((t + 5) / 10) : string(t / 10) + (t % 10 != 0 ? '.' + string(t % 10) : ''))`;
      const text = message(id, {
        field: celString(field),
        period: 'period',
        forks: bind('t', `(${ppn} * 10 + period / 2) / period`, rate),
        podsPerNode: ppn,
        min: 'mn',
      });
      return `has(${probe}.exec) ? ${bind('period', effective(probe, 'periodSeconds'), `(period < mn ? [${text}] : [])`)} : []`;
    }),
  );
}

/** Exec forks per second on a node: whole above 10, one decimal below ("2.5", "3"). */
export function formatRate(rate: number): string {
  // Stryker disable next-line EqualityOperator,Regex: at exactly 10 both ways write "10"; toFixed(1) writes one ".0", at the end.
  return rate >= 10 ? String(Math.round(rate)) : rate.toFixed(1).replace(/\.0$/, '');
}
