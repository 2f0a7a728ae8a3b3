// probe-lint audit's runtime evidence, produced by a real kubelet: a Deployment whose liveness
// mirrors its readiness, made slow so that the kubelet kills it at least twice, and a healthy one.
// audit (as the chart's ServiceAccount, with only its RBAC) must report the kills and the failed
// checks with the counts the Events hold, attributed to the Deployment and to liveness, tied to the
// static finding on the same container, first in the output — and nothing for the healthy one. Then
// a Deployment of two whose liveness checks a dependency (the test's own server): the server stops,
// the kubelet restarts both replicas within one failure window, and audit names that cascade.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { runCliAsync } from '../helpers.js';
import { assertRuntimeArticle, auditWithHtml } from '../html-article.js';
import { startCluster, type Cluster } from './cluster.js';
import { installChartWithoutWebhooks, installReportCrds, renderChart, serviceAccountKubeconfig } from './install.js';
import { appDeployment, appPodSpec, nodeLeftovers, nodeUnavailable, setHealth, startNode, type Node } from './node.js';

const unavailable = nodeUnavailable();
if (unavailable !== undefined && process.env.CI !== undefined) throw new Error(`the real-node suite cannot run: ${unavailable}`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SLOW_PORT = 18200;
const HEALTHY_PORT = 18201;
const CASCADE_PORT = 18202;
/** The pod network's gateway: the bridge's address in the suite's network namespace, where the test's own servers listen. */
const POD_GATEWAY = '10.244.0.1';

let cluster: Cluster;
let node: Node;
before(async () => {
  if (unavailable !== undefined) return;
  cluster = await startCluster();
  node = await startNode(cluster);
  // The scheduled audit's account and RBAC too (its schedule never comes: the tests run it themselves).
  await installChartWithoutWebhooks(cluster, renderChart(['rbac.audit=true', 'auditReports.enabled=true', 'auditReports.schedule=0 0 1 1 *']));
});
after(async () => {
  if (unavailable !== undefined) return;
  await node?.stop();
  const left = nodeLeftovers(cluster);
  await cluster?.stop();
  assert.deepEqual(left, []);
});

const check = { httpGet: { path: '/check/health' }, periodSeconds: 2, failureThreshold: 3, timeoutSeconds: 1 };

interface CoreEvent {
  reason: string;
  message: string;
  count?: number;
  involvedObject: { kind: string; name: string; fieldPath?: string };
}

/** The kubelet's Events about the Pods of `prefix`, through the core API (audit reads events.k8s.io). */
async function eventsOf(prefix: string): Promise<CoreEvent[]> {
  const reply = await cluster.api('GET', '/api/v1/namespaces/default/events');
  return (reply.json.items as CoreEvent[]).filter((event) => event.involvedObject.kind === 'Pod' && event.involvedObject.name.startsWith(`${prefix}-`));
}

const total = (events: CoreEvent[], match: (event: CoreEvent) => boolean) => events.filter(match).reduce((sum, event) => sum + (event.count ?? 1), 0);

describe('audit reads what the kubelet did', { skip: unavailable }, () => {
  it("reports the liveness kills and failed checks of a slow Deployment with the Events' counts, the likely cause, first; nothing for a healthy one", async () => {
    const slow = appDeployment(
      'slow',
      appPodSpec(node, { port: SLOW_PORT, log: 'slow', probes: { livenessProbe: check, readinessProbe: check }, env: { HEALTH: 'slow', SLOW_MS: '3000' } }),
    );
    const healthy = appDeployment('healthy', appPodSpec(node, { port: HEALTHY_PORT, log: 'healthy', probes: { livenessProbe: check, readinessProbe: check } }));
    const applied = await cluster.kubectl(['apply', '-f', '-'], { input: [slow, healthy].map((object) => JSON.stringify(object)).join('\n') });
    assert.equal(applied.code, 0, applied.stderr);

    // At least two kills, then the app answers again so that the counts stop moving.
    for (
      let waited = 0;
      total(await eventsOf('slow'), (event) => event.reason === 'Killing' && /failed liveness probe/.test(event.message)) < 2;
      waited += 500
    ) {
      if (waited > 120_000) assert.fail(`no second liveness kill: ${JSON.stringify(await eventsOf('slow'))}`);
      await sleep(500);
    }
    for (let waited = 0; ; waited += 200) {
      const answered = await setHealth(SLOW_PORT, 'ok').then(
        () => true,
        () => false,
      );
      if (answered) break;
      if (waited > 60_000) assert.fail('the restarted app never came back to be told it is healthy');
      await sleep(200);
    }
    await sleep(3_000); // checks in flight end, and their events are written

    const events = await eventsOf('slow');
    const kubeconfig = await serviceAccountKubeconfig(cluster);
    const { html, ...audit } = await auditWithHtml(kubeconfig, '30m');
    assert.equal(audit.code, 0, audit.stderr);
    assert.equal(audit.stderr, '');
    assert.deepEqual(await eventsOf('slow'), events, 'no event changed while audit ran');
    const findings = JSON.parse(audit.stdout).findings as any[];

    const restarts = findings.filter((finding) => finding.rule === 'runtime-liveness-restarts');
    assert.equal(restarts.length, 1, JSON.stringify(findings.map((finding) => finding.rule)));
    const [finding] = restarts;
    assert.deepEqual([finding.resource.kind, finding.resource.name, finding.container], ['Deployment', 'slow', 'app']);
    assert.equal(findings[0], finding, 'the runtime finding comes first');
    const unhealthy = (word: string) => total(events, (event) => event.reason === 'Unhealthy' && event.message.startsWith(`${word} probe`));
    assert.deepEqual(finding.evidence.unhealthy, { livenessProbe: unhealthy('Liveness'), readinessProbe: unhealthy('Readiness'), startupProbe: 0 });
    assert.equal(
      finding.evidence.livenessKills,
      total(events, (event) => event.reason === 'Killing' && /failed liveness probe/.test(event.message)),
    );
    assert.ok(finding.evidence.livenessKills >= 2);
    assert.equal(finding.evidence.pods, 1);
    const pods = (await cluster.api('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dslow')).json.items as any[];
    assert.equal(finding.evidence.restartCount, pods[0].status.containerStatuses[0].restartCount);
    assert.ok(finding.evidence.restartCount >= 2);
    assert.ok(
      finding.causes.some((cause: { rule: string }) => cause.rule === 'liveness-mirrors-readiness'),
      'tied to the static finding on the same container',
    );
    assert.match(finding.message, /The likely cause, found on this container's spec: liveness-mirrors-readiness/);
    assert.match(finding.message, /context deadline exceeded/, 'the last failure is quoted');

    // The HTML report of the same run: the finding by its fingerprint, with what the cluster showed and its causes.
    const article = assertRuntimeArticle(html, finding);
    assert.match(article, /liveness-mirrors-readiness<\/a>/);

    // What a user reads: the same, first in the text report.
    const text = await runCliAsync(['audit', '-A', '--kubeconfig', kubeconfig, '--fail-on', 'never', '--since', '30m', '--min-severity', 'warning']);
    assert.match(
      text.stdout.split('\n').find((line) => line.startsWith('  '))!,
      /^ {2}Deployment\/default\/slow +warning +runtime-liveness-restarts /,
    );

    assert.deepEqual(
      findings.filter((candidate) => candidate.resource.name === 'healthy' && candidate.rule.startsWith('runtime-')),
      [],
      'nothing runtime for the healthy Deployment',
    );
  });

  it('writes both report kinds into the cluster as the scheduled audit would, updates them in place, and removes stale parts', async () => {
    await installReportCrds(cluster);
    const kubeconfig = await serviceAccountKubeconfig(cluster, 'probe-lint-audit');
    for (const [kind, resource] of [
      ['policyreport', 'policyreports.wgpolicyk8s.io'],
      ['openreports', 'reports.openreports.io'],
    ] as const) {
      // The chart's RBAC for this kind, as `helm upgrade --set auditReports.kind=...` would leave it.
      const role = renderChart(['auditReports.enabled=true', `auditReports.kind=${kind}`]).objects.filter(
        (object) => object.kind === 'ClusterRole' && object.metadata.name === 'probe-lint-audit',
      );
      assert.equal((await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify(role[0]) })).code, 0);
      // The format's output is what kubectl applies, too.
      const printed = await runCliAsync(['audit', '-A', '--kubeconfig', kubeconfig, '--format', kind, '--fail-on', 'never', '--since', '30m']);
      const dryRun = await cluster.kubectl(['apply', '--dry-run=server', '-f', '-'], { input: printed.stdout });
      assert.equal(dryRun.code, 0, dryRun.stderr);

      const run = async () => {
        const audit = await runCliAsync([
          'audit',
          '-A',
          '--kubeconfig',
          kubeconfig,
          '--apply-reports',
          kind,
          '--format',
          'compact',
          '--fail-on',
          'never',
          '--since',
          '30m',
        ]);
        assert.equal(audit.code, 0, audit.stderr);
        const listed = await cluster.kubectl(['get', resource, '-A', '-o', 'json']);
        assert.equal(listed.code, 0, listed.stderr);
        return { stderr: audit.stderr, items: JSON.parse(listed.stdout).items as any[] };
      };
      const first = await run();
      assert.match(first.stderr, /wrote \d+ /);
      const reports = first.items.filter((item) => item.metadata.labels?.['app.kubernetes.io/managed-by'] === 'probe-lint');
      assert.ok(reports.length >= 2, `reports for the namespaces with workloads: ${reports.map((item) => item.metadata.namespace).join(', ')}`);
      const defaultReport = reports.find((item) => item.metadata.namespace === 'default' && item.metadata.name === 'probe-lint');
      const kills = defaultReport.results.find((result: any) => result.policy === 'runtime-liveness-restarts');
      assert.deepEqual(kills.resources, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'slow', namespace: 'default' }]);
      assert.equal(kills.category, 'runtime');
      assert.ok(Number(kills.properties.livenessKills) >= 2);

      // A part an earlier run wrote that this one does not: removed; the others updated in place.
      const stale = { ...defaultReport, metadata: { name: 'probe-lint-9', namespace: 'default', labels: defaultReport.metadata.labels } };
      assert.equal((await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify(stale) })).code, 0);
      const second = await run();
      assert.match(second.stderr, /deleted 1 stale/);
      const again = second.items.filter((item) => item.metadata.labels?.['app.kubernetes.io/managed-by'] === 'probe-lint');
      assert.deepEqual(
        again.map((item) => `${item.metadata.namespace}/${item.metadata.name} ${item.metadata.uid}`).sort(),
        reports.map((item) => `${item.metadata.namespace}/${item.metadata.name} ${item.metadata.uid}`).sort(),
      );
    }
  });

  it('writes every report it can when a namespace refuses its own, lists that namespace, leaves nothing half-written there, and exits 2', async () => {
    // A quota of no PolicyReports: the API server refuses the namespace's report, as a policy or an RBAC gap would.
    const namespaced = (object: Record<string, any>) => ({ ...object, metadata: { ...object.metadata, namespace: 'refusing' } });
    const objects = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'refusing' } },
      namespaced(
        appDeployment('quiet', {
          containers: [{ name: 'app', image: 'registry.example.com/app:1', livenessProbe: { tcpSocket: { port: 80 }, timeoutSeconds: 10 } }],
        }),
      ),
    ];
    assert.equal((await cluster.kubectl(['apply', '-f', '-'], { input: objects.map((object) => JSON.stringify(object)).join('\n') })).code, 0);
    await cluster.kubectl(['scale', 'deployment/quiet', '-n', 'refusing', '--replicas=0']);
    // The chart's RBAC for PolicyReports (the test above left OpenReports').
    const role = renderChart(['auditReports.enabled=true', 'auditReports.kind=policyreport']).objects.filter(
      (object) => object.kind === 'ClusterRole' && object.metadata.name === 'probe-lint-audit',
    );
    assert.equal((await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify(role[0]) })).code, 0);
    const kubeconfig = await serviceAccountKubeconfig(cluster, 'probe-lint-audit');
    const apply = () =>
      runCliAsync([
        'audit',
        '-A',
        '--kubeconfig',
        kubeconfig,
        '--apply-reports',
        'policyreport',
        '--format',
        'compact',
        '--fail-on',
        'never',
        '--since',
        '30m',
      ]);
    const reportsIn = async (namespace: string) =>
      (JSON.parse((await cluster.kubectl(['get', 'policyreports.wgpolicyk8s.io', '-n', namespace, '-o', 'json'])).stdout).items as any[]).filter(
        (item) => item.metadata.labels?.['app.kubernetes.io/managed-by'] === 'probe-lint',
      );
    try {
      const first = await apply();
      assert.equal(first.code, 0, first.stderr);
      const before = await reportsIn('refusing');
      assert.equal(before.length, 1, 'the namespace had its report');
      const quota = {
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        metadata: { name: 'no-reports', namespace: 'refusing' },
        spec: { hard: { 'count/policyreports.wgpolicyk8s.io': '0' } },
      };
      assert.equal((await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify(quota) })).code, 0);
      // A quota limits creations: the report is deleted, so the next write is one.
      await cluster.kubectl(['delete', 'policyreports.wgpolicyk8s.io', '-n', 'refusing', '--all']);
      let refused = await apply();
      for (let waited = 0; refused.code === 0; waited += 1000) {
        if (waited > 30_000) assert.fail(`the quota never refused the report: ${refused.stderr}`);
        await cluster.kubectl(['delete', 'policyreports.wgpolicyk8s.io', '-n', 'refusing', '--all']);
        await sleep(1000);
        refused = await apply();
      }
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /probe-lint audit: wrote \d+ PolicyReport objects?/);
      assert.match(refused.stderr, /probe-lint audit: cannot write refusing\/probe-lint: .*quota/);
      assert.equal((await reportsIn('default')).length, 1, "another namespace's report was written");
      assert.deepEqual(await reportsIn('refusing'), [], 'nothing half-written where it was refused');
    } finally {
      await cluster.kubectl(['delete', 'namespace', 'refusing', '--wait=false']);
    }
  });

  // Last: its kills would be in the findings the tests above count.
  it('names the cascade when a liveness probe that checks a dependency has the kubelet restart every replica together', async () => {
    // The dependency (a database, say) is a server of the test's, which the Pods reach through the bridge's gateway.
    const sockets = new Set<Socket>();
    const dependency = createServer((_request, response) => response.end('ok')).on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => dependency.listen(0, '0.0.0.0', resolve));
    const { port } = dependency.address() as AddressInfo;
    assert.equal((await cluster.kubectl(['create', 'namespace', 'cascade'])).code, 0);
    const spec = appPodSpec(node, {
      port: CASCADE_PORT,
      log: 'cascade',
      probes: { livenessProbe: { httpGet: { path: '/actuator/health' }, periodSeconds: 2, failureThreshold: 2, timeoutSeconds: 1 } },
      env: { DEPENDENCY: `http://${POD_GATEWAY}:${port}/` },
    });
    const cascade = appDeployment('cascade', { ...spec, hostNetwork: false });
    const manifest = { ...cascade, metadata: { name: 'cascade', namespace: 'cascade' }, spec: { ...cascade.spec, replicas: 2 } };
    const applied = await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify(manifest) });
    assert.equal(applied.code, 0, applied.stderr);
    const pods = async () => (await cluster.api('GET', '/api/v1/namespaces/cascade/pods')).json.items as any[];
    for (let waited = 0; (await pods()).filter((pod) => pod.status.containerStatuses?.[0]?.state?.running).length < 2; waited += 500) {
      if (waited > 120_000) assert.fail(`the two replicas never ran: ${JSON.stringify((await pods()).map((pod) => pod.status))}`);
      await sleep(500);
    }
    await sleep(3_000); // both pass liveness with the dependency up

    // The dependency goes down: every replica fails its liveness at once, and the kubelet restarts each.
    await new Promise<void>((resolve) => {
      dependency.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
    const kills = async () => {
      const events = (await cluster.api('GET', '/api/v1/namespaces/cascade/events')).json.items as (CoreEvent & { lastTimestamp: string })[];
      return events.filter((event) => event.reason === 'Killing' && /failed liveness probe/.test(event.message));
    };
    for (let waited = 0; new Set((await kills()).map((event) => event.involvedObject.name)).size < 2; waited += 500) {
      if (waited > 60_000) assert.fail(`not every replica was restarted: ${JSON.stringify(await kills())}`);
      await sleep(500);
    }
    // It comes back, and the restarts stop.
    await new Promise<void>((resolve) => dependency.listen(port, '0.0.0.0', resolve));
    try {
      await sleep(3_000);
      const killed = await kills();
      const times = killed.map((event) => Date.parse(event.lastTimestamp));
      const kubeconfig = await serviceAccountKubeconfig(cluster);
      const audit = await runCliAsync(['audit', '-n', 'cascade', '--kubeconfig', kubeconfig, '--format', 'json', '--fail-on', 'never', '--since', '30m']);
      assert.equal(audit.code, 0, audit.stderr);
      const findings = (JSON.parse(audit.stdout).findings as any[]).filter((finding) => finding.rule === 'liveness-checks-dependencies');
      assert.equal(findings.length, 1, audit.stdout);
      const [finding] = findings;
      assert.deepEqual([finding.resource.kind, finding.resource.name, finding.container, finding.messageId], ['Deployment', 'cascade', 'app', 'endpoint']);
      assert.match(finding.message, /When one of them is down, both replicas fail liveness together and are restarted 2-5 s later/);
      const within = Math.round((Math.max(...times) - Math.min(...times)) / 1000);
      assert.match(
        finding.message,
        new RegExp(`It happened: in the last 30m, the kubelet restarted this container in 2 pods for failed liveness within ${within} s of each other\\.`),
      );
      assert.ok(within <= 4, `the kills fell within one failure window: ${within} s apart`);
      assert.equal(
        finding.evidence.livenessKills,
        killed.reduce((sum, event) => sum + (event.count ?? 1), 0),
      );
    } finally {
      dependency.closeAllConnections();
      await new Promise<void>((resolve) => dependency.close(() => resolve()));
      await cluster.kubectl(['delete', 'namespace', 'cascade', '--wait=false']);
    }
  });
});
