import { counted, defineRule, findingEvidence, product, PROBED_CONTAINERS, quotedFromCluster, RUNTIME_POLICY } from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'runtime-startup-restarts',
    severity: 'warning',
    summary: 'the startupProbe gave up on the container and the kubelet restarted it (audit: runtime evidence)',
    remediation:
      'The container takes longer to start than the startupProbe allows: raise its failureThreshold so that failureThreshold × periodSeconds covers the slowest start, or find what slows the start.',
    scope: PROBED_CONTAINERS,
    readsEvidence: true,
    policy: RUNTIME_POLICY,
    messages: {
      gaveUp: {
        short: 'the startupProbe gave up on container {container} {kills} in the last {window}; it allows {budget}: raise its failureThreshold',
        long:
          'the kubelet restarted container {container} {kills} in the last {window} because its startupProbe gave up, across {pods} (restartCount now {restarts}); ' +
          'the probe allows failureThreshold × periodSeconds = {budget} to start{last}. A container that needs longer never starts: it is killed again and again, ' +
          'with growing back-off ({backOff} in the window). Raise the startupProbe failureThreshold to cover the slowest start, or find what slows it.',
      },
    },
  },
  checkContainer({ container, evidence, evidenceWindow, probe, report }) {
    const startup = probe('startup');
    if (evidence === undefined || evidence.startupKills === 0) return;
    const last = evidence.lastFailure.startupProbe;
    report({
      messageId: 'gaveUp',
      data: {
        container: container.name,
        kills: counted(evidence.startupKills, 'time'),
        // Evidence always comes with its window (EvidenceMap has one).
        window: evidenceWindow!,
        pods: counted(evidence.pods, 'Pod'),
        restarts: evidence.restartCount,
        // Evidence can outlive the spec: the probe may be gone since.
        budget: startup === undefined ? 'what it allowed then (it has none now)' : product(startup.failureThreshold, startup.periodSeconds),
        backOff: counted(evidence.backOff, 'back-off'),
        last: last === undefined ? '' : ` (the last failure: ${quotedFromCluster(last)})`,
      },
      pointer: startup?.pointer ?? container.pointer,
      evidence: findingEvidence(evidence),
    });
  },
});
