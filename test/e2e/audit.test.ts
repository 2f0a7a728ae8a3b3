// probe-lint audit against the real API server, authenticated as the chart's ServiceAccount with
// the chart's own RBAC (rbac.audit: true): the same findings as the CLI over the same manifests.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, runCli } from '../helpers.js';
import { createNamespace, startCluster, type Cluster } from './cluster.js';
import { installChartWithoutWebhooks, renderChart, serviceAccountKubeconfig } from './install.js';

const WORKLOADS = join(ROOT, 'test/e2e/fixtures/workloads.yaml');

interface Finding {
  rule: string;
  messageId: string;
  severity: string;
  resource: { kind: string; namespace: string | null; name: string };
  container: string | null;
  pointer: string;
}

let cluster: Cluster;
before(async () => {
  cluster = await startCluster();
  const chart = renderChart(['rbac.audit=true']);
  // The webhook is not running here: its configurations stay out.
  await installChartWithoutWebhooks(cluster, chart);
  for (const namespace of ['shop', 'ops']) await createNamespace(cluster, namespace);
  const applied = await cluster.kubectl(['apply', '-f', WORKLOADS]);
  assert.equal(applied.code, 0, applied.stderr);
});
after(async () => cluster?.stop());

const key = (finding: Finding) =>
  `${finding.resource.kind}/${finding.resource.namespace}/${finding.resource.name} ${finding.container} ${finding.rule}/${finding.messageId} ${finding.severity} ${finding.pointer}`;

describe('probe-lint audit', () => {
  it("reports what the CLI reports for the same manifests, running with only the chart's RBAC", async () => {
    const offline = JSON.parse(runCli([WORKLOADS, '--format', 'json', '--fail-on', 'never']).stdout) as { findings: Finding[] };
    const kubeconfig = await serviceAccountKubeconfig(cluster);
    // This cluster has no nodes: its density is unknown, as it is offline.
    const audit = runCli(['audit', '-A', '--kubeconfig', kubeconfig, '--format', 'json', '--fail-on', 'never']);
    assert.equal(audit.code, 0, audit.stderr);
    const live = JSON.parse(audit.stdout) as { findings: Finding[]; summary: { resources: number } };
    assert.ok(offline.findings.length >= 8, 'the fixture has findings to compare');
    assert.deepEqual(live.findings.map(key).sort(), offline.findings.map(key).sort());
    // Deployments' Pods, and the Service of another namespace's objects, are not counted twice.
    assert.equal(live.findings.filter((finding) => finding.resource.kind === 'Pod' && finding.resource.name !== 'debug').length, 0);
  });

  it("is refused without the chart's audit RBAC, and says so", async () => {
    await cluster.kubectl(['apply', '-f', '-'], {
      input: renderChart()
        .objects.filter((object) => object.kind === 'ClusterRole')
        .map((object) => JSON.stringify(object))
        .join('\n'),
    });
    const kubeconfig = await serviceAccountKubeconfig(cluster);
    const audit = runCli(['audit', '-A', '--kubeconfig', kubeconfig]);
    assert.equal(audit.code, 2);
    assert.match(audit.stderr, /cannot read the workloads from https:\/\/127\.0\.0\.1:\d+: GET \/apis\/apps\/v1\/deployments: HTTP 403 .*forbidden/);
  });
});
