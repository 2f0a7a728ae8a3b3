import { counted, defineRule, findingEvidence, PROBED_CONTAINERS, quotedFromCluster, RUNTIME_POLICY } from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'runtime-readiness-failures',
    severity: 'info',
    summary: 'readiness checks failed: Pods left their Services (audit: runtime evidence)',
    remediation:
      'If the app was shedding load, readiness did its job; if not, find why the check fails (the message quotes the last failure), since every failureThreshold failures in a row take a Pod out of its Services.',
    scope: PROBED_CONTAINERS,
    readsEvidence: true,
    policy: RUNTIME_POLICY,
    messages: {
      failures: {
        short: 'readiness of container {container} failed {failures} in the last {window} across {pods}',
        long:
          'the readinessProbe of container {container} failed {failures} in the last {window}, across {pods}{ignored}{last}: every failureThreshold failures in a row take a Pod ' +
          'out of its Services until it answers again (the kubelet also checks once more whenever a Pod turns not ready, so the count runs a little above the thresholds). ' +
          'If the app was shedding load, readiness did its job; if not, find why the check fails.',
      },
    },
  },
  checkContainer({ container, evidence, evidenceWindow, probe, report }) {
    // With liveness kills, runtime-liveness-restarts says this too.
    if (evidence === undefined || evidence.livenessKills > 0) return;
    // Fewer failures than one failureThreshold, summed over every Pod, cannot have taken a Pod out
    // of its Services: a Pod is not ready until its first success, so a refused check or two while
    // the app starts is readiness doing its job (measured on the node: one, before the app listened).
    const readiness = probe('readiness');
    if (evidence.unhealthy.readinessProbe < (readiness?.failureThreshold ?? 1)) return;
    // A kubelet that says which failures it ignored (below the threshold) tells whether any took a Pod out.
    const ignored = evidence.ignored.readinessProbe;
    if (ignored > 0 && ignored >= evidence.unhealthy.readinessProbe) return;
    const last = evidence.lastFailure.readinessProbe;
    report({
      messageId: 'failures',
      data: {
        container: container.name,
        failures: counted(evidence.unhealthy.readinessProbe, 'time'),
        // Evidence always comes with its window (EvidenceMap has one).
        window: evidenceWindow!,
        pods: counted(evidence.pods, 'Pod'),
        ignored: ignored === 0 ? '' : ` (${ignored} of them below its failureThreshold, which the kubelet ignored)`,
        last: last === undefined ? '' : ` (the last failure: ${quotedFromCluster(last)})`,
      },
      pointer: readiness?.pointer ?? container.pointer,
      evidence: findingEvidence(evidence),
    });
  },
});
