import {
  counted,
  defineRule,
  metricsSourceText,
  PROBED_CONTAINERS,
  probeMetricEvidence,
  product,
  RUNTIME_POLICY,
  type ProbeMeasurement,
} from '../../src/rule-api.js';

/** The share of checks that failed or errored, at or above which a probe is reported. */
const FAILING_SHARE = 0.05;

/** "4.8%", "12%". */
function percent(share: number): string {
  const value = share * 100;
  return `${value < 10 ? value.toFixed(1).replace(/\.0$/, '') : Math.round(value)}%`;
}

/** "40 s", "25 min", "3.2 h", "9 days": how long a number of seconds is, roughly. */
function roughly(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 2 * 86400) return `${(seconds / 3600).toFixed(1).replace(/\.0$/, '')} h`;
  return `${Math.round(seconds / 86400)} days`;
}

function resultsText({ results }: ProbeMeasurement): string {
  return `${results.successful} successful, ${results.failed} failed and ${results.unknown} unknown`;
}

export default defineRule({
  meta: {
    id: 'runtime-probe-failing',
    severity: 'warning',
    summary: 'a liveness or readiness probe failed 5% or more of its checks without a restart (audit --probe-metrics)',
    remediation:
      'Find why the checks fail (a slow endpoint: see runtime-probe-slow). A readiness probe that flaps moves the Pod in and out of its Services; a liveness probe that fails this often restarts the container on the next unlucky stretch.',
    scope: PROBED_CONTAINERS,
    readsEvidence: true,
    policy: RUNTIME_POLICY,
    messages: {
      readiness: {
        short: 'readiness of container {container} failed {bad} of {total} checks ({share}) in the last {window}: the Pod leaves its Services',
        long:
          'the kubelet counted {results} checks of the readinessProbe of container {container} in the last {window} across {pods} (from {source}): {share} failed. ' +
          'Every failureThreshold ({threshold}) failures in a row take the Pod out of its Services — {detect} after the failures begin — and it returns after successThreshold ({success}) ' +
          'passing checks: {episodes}. Clients see such a Pod come and go. Find why the check fails; if the endpoint is only slow, see runtime-probe-slow.',
      },
      liveness: {
        short: 'liveness of container {container} failed {bad} of {total} checks ({share}) in the last {window}, not yet {threshold} in a row',
        long:
          'the kubelet counted {results} checks of the livenessProbe of container {container} in the last {window} across {pods} (from {source}): {share} failed, ' +
          'never failureThreshold ({threshold}) in a row, so nothing was restarted yet. {chance} When failures bunch up — under load, a pause, a slow dependency — ' +
          '{threshold} in a row ({detect}) and {consequence}. Find why the check fails; if the endpoint is only slow, see runtime-probe-slow.',
      },
    },
  },
  checkContainer({ container, evidence, timedProbes, report }) {
    if (evidence === undefined) return;
    for (const probe of timedProbes) {
      // A startup probe fails until the app is up: that is its job.
      if (probe.type === 'startup') continue;
      // A restart for it is runtime-liveness-restarts' to report.
      if (probe.type === 'liveness' && evidence.livenessKills > 0) continue;
      const measured = evidence.probeMetrics[probe.field as keyof typeof evidence.probeMetrics];
      if (measured === undefined) continue;
      const { successful, failed, unknown } = measured.results;
      const total = successful + failed + unknown;
      const bad = failed + unknown;
      if (total === 0 || bad / total < FAILING_SHARE) continue;
      const share = bad / total;
      const common = {
        container: container.name,
        bad,
        total,
        share: percent(share),
        window: measured.window,
        results: resultsText(measured),
        pods: counted(measured.pods, 'Pod'),
        source: metricsSourceText(measured.source),
        threshold: probe.failureThreshold,
        detect: product(probe.failureThreshold, probe.periodSeconds),
      };
      const pointer = probe.pointer;
      const evidenceOf = probeMetricEvidence(measured);
      if (probe.type === 'readiness') {
        const episodes = Math.floor(bad / probe.failureThreshold);
        report({
          messageId: 'readiness',
          data: {
            ...common,
            success: probe.successThreshold,
            episodes:
              episodes === 0
                ? `with ${counted(bad, 'failure')}, fewer than failureThreshold, no Pod can have left them yet`
                : `at this rate a Pod can have left them up to ${counted(episodes, 'time')} in the window`,
          },
          pointer,
          evidence: evidenceOf,
        });
        continue;
      }
      // If failures were independent, failureThreshold in a row happen about once in share^-threshold checks.
      const checksPerRun = Math.pow(share, -probe.failureThreshold);
      report({
        messageId: 'liveness',
        data: {
          ...common,
          // Only liveness gets here: startup and readiness were handled above.
          consequence: container.restartPolicy === 'Never' ? 'the container is killed and not restarted' : 'the container is killed and restarted',
          chance: `Were the failures independent, ${probe.failureThreshold} in a row would come about once in ${Math.round(checksPerRun)} checks: every ${roughly(checksPerRun * probe.periodSeconds)} at a period of ${probe.periodSeconds} s.`,
        },
        pointer,
        evidence: evidenceOf,
      });
    }
  },
});
