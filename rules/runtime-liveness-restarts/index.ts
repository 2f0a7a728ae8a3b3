import { counted, defineRule, findingEvidence, PROBED_CONTAINERS, quotedFromCluster, RUNTIME_POLICY } from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'runtime-liveness-restarts',
    severity: 'warning',
    summary: 'the kubelet killed the container for failing its liveness probe (audit: runtime evidence)',
    remediation:
      'Find why the liveness check failed (the message quotes the last failure). If the app was only slow or overloaded, make liveness check only that the process is alive and raise its failureThreshold.',
    scope: PROBED_CONTAINERS,
    readsEvidence: true,
    policy: RUNTIME_POLICY,
    messages: {
      kills: {
        short: 'liveness killed container {container} {kills} in the last {window} across {pods}; readiness failed {readiness}',
        long:
          'the kubelet killed container {container} {kills} in the last {window} for failing its livenessProbe, across {pods} (restartCount now {restarts}); ' +
          'in the same window liveness failed {liveness} and readiness {readiness}{last}. Each kill drops the requests in flight and starts the app cold. ' +
          'Find why the check fails; if the app was only slow or overloaded, make liveness check only that the process is alive and raise its failureThreshold.',
      },
    },
  },
  checkContainer({ container, evidence, evidenceWindow, probe, report }) {
    if (evidence === undefined || evidence.livenessKills === 0) return;
    const last = evidence.lastFailure.livenessProbe;
    report({
      messageId: 'kills',
      data: {
        container: container.name,
        kills: counted(evidence.livenessKills, 'time'),
        // Evidence always comes with its window (EvidenceMap has one).
        window: evidenceWindow!,
        pods: counted(evidence.pods, 'Pod'),
        restarts: evidence.restartCount,
        liveness: counted(evidence.unhealthy.livenessProbe, 'check'),
        readiness: counted(evidence.unhealthy.readinessProbe, 'check'),
        last: last === undefined ? '' : ` (the last liveness failure: ${quotedFromCluster(last)})`,
      },
      pointer: probe('liveness')?.pointer ?? container.pointer,
      evidence: findingEvidence(evidence),
    });
  },
});
