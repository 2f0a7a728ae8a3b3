// End to end: the webhook with its cluster readers against the local API server, which hangs,
// goes down mid-run and comes back; `probe-lint audit`; and lint, which never reads a cluster.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { RULES } from '../rules/index.js';
import { createClusterAccess, type ClusterAccess } from '../src/cluster/cluster-access.js';
import type { ProbeLintConfig } from '../src/engine/config.js';
import { Engine } from '../src/engine/engine.js';
import { LintSession } from '../src/lint/index.js';
import { WebhookMetrics } from '../src/webhook/metrics.js';
import { NamespacePolicy } from '../src/webhook/namespace-policy.js';
import { createLogger } from '../src/webhook/logger.js';
import { createWebhookServer, type WebhookServer } from '../src/webhook/server.js';
import { admissionReview, container, deployment, pod } from './admission.js';
import { FakeApiServer, nodes, podsOn } from './fake-apiserver.js';
import { podYaml, runCliAsync, until, wait } from './helpers.js';
import { makeTestPki, type TestPki } from './tls.js';
import { httpsRequest } from './webhook-client.js';

let pki: TestPki;
let directory: string;
before(() => {
  pki = makeTestPki();
  directory = mkdtempSync(join(tmpdir(), 'probe-lint-e2e-'));
});

const denseCluster = (api: FakeApiServer) => {
  api.set('/api/v1/nodes', nodes(3));
  api.set('/api/v1/pods', [...podsOn('node-0', 80), ...podsOn('node-1', 80), ...podsOn('node-2', 80)]);
  api.set('/api/v1/services', []);
  api.set('/api/v1/namespaces', [{ metadata: { name: 'shop', labels: { 'probe-lint.dev/mode': 'enforce' } } }, { metadata: { name: 'dev', labels: {} } }]);
};

const rejected = () =>
  container('web', { livenessProbe: { tcpSocket: { port: 80 } }, readinessProbe: { httpGet: { path: '/ready', port: 80 }, terminationGracePeriodSeconds: 5 } });
const frequentExec = () =>
  container('agent', { livenessProbe: { exec: { command: ['/bin/check'] }, periodSeconds: 2 }, readinessProbe: { tcpSocket: { port: 80 } } });

/**
 * The webhook with its cluster readers against a fresh fake API server, started before the suite's
 * tests and stopped after them; `settings` are the refresher's.
 */
function webhookWithCluster(settings: NonNullable<ProbeLintConfig['cluster']>) {
  const config: ProbeLintConfig = { cluster: settings };
  const harness = {} as { api: FakeApiServer; access: ClusterAccess; server: WebhookServer; port: number };
  before(async () => {
    harness.api = new FakeApiServer(pki);
    await harness.api.start();
    denseCluster(harness.api);
    const metrics = new WebhookMetrics();
    const logger = createLogger(new Writable({ write: (_chunk, _encoding, done) => done() }));
    harness.access = createClusterAccess({ file: harness.api.kubeconfig(directory), context: undefined }, config, metrics.registry, logger);
    harness.server = await createWebhookServer({
      rules: RULES,
      session: new LintSession(new Engine(RULES, { config, cluster: harness.access.refresher })),
      policy: new NamespacePolicy({}, harness.access.namespaces),
      webhook: {},
      tls: (() => {
        const cert = pki.issue('e2e-webhook');
        return { certFile: cert.cert, keyFile: cert.key };
      })(),
      logger,
      metrics,
    });
    await harness.server.app.listen({ port: 0, host: '127.0.0.1' });
    harness.port = (harness.server.app.server.address() as { port: number }).port;
    harness.access.refresher.start();
    harness.access.namespaces.start();
    await until(() => harness.access.refresher.latest !== undefined && harness.access.namespaces.synced, 'the first facts');
  });
  after(async () => {
    harness.access.stop();
    await harness.server.close();
    await harness.api.stop();
  });
  const review = async (object: any) => {
    const reply = await httpsRequest(harness.port, '/validate', { body: JSON.stringify(admissionReview({ operation: 'CREATE', object })), ca: pki.caCert });
    assert.equal(reply.status, 200);
    return reply.json.response;
  };
  const metric = async (name: string) => {
    // Sum over label sets: probe_lint_cluster_refresh_failures_total{call="density"} 3 …
    const text = (await httpsRequest(harness.port, '/metrics', { ca: pki.caCert })).text;
    const values = [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))].map((match) => Number(match[1]));
    return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0);
  };
  return { harness, config, review, metric };
}

describe('webhook with a live cluster', () => {
  const { harness, config, review, metric } = webhookWithCluster({
    refreshIntervalSeconds: 0.1,
    guard: { deadlineSeconds: 0.4, backoffInitialSeconds: 0.05, backoffMaxSeconds: 0.1, failureThreshold: 3, openSeconds: 0.6 },
  });

  it('lists and watches a healthy API server without one failed call', async () => {
    // The namespace watch is open once its headers arrive; a start that never counts as one would
    // fail at every deadline and could take the circuit's one trial call after an outage.
    await until(() => harness.api.openWatches === 1, 'the namespace watch');
    await wait(2.5 * config.cluster!.guard!.deadlineSeconds! * 1000); // past the deadline a start that never counts would miss
    assert.ok(!((await metric('probe_lint_cluster_refresh_failures_total')) > 0), 'no call failed');
    assert.equal(await metric('probe_lint_circuit_breaker_state'), 0);
  });

  it('uses the namespace label for the mode and the cluster density for exec probes', async () => {
    assert.equal((await review(pod([rejected()], { namespace: 'shop' }))).allowed, false);
    assert.equal((await review(pod([rejected()], { namespace: 'dev' }))).allowed, true);
    const warnings: string[] = (await review(pod([frequentExec()], { namespace: 'dev' }))).warnings;
    assert.ok(
      warnings.some((line) => line.endsWith('[exec-probe-dense-cluster]')),
      warnings.join('\n'),
    );
  });

  it('keeps answering when the API server goes down, with facts aging, and recovers when it is back', async () => {
    await until(async () => (await metric('probe_lint_circuit_breaker_state')) === 0, 'a closed circuit');
    const apiPort = harness.api.port;
    await harness.api.stop();
    const ageAtOutage = await metric('probe_lint_cluster_facts_age_seconds');
    for (let index = 0; index < 10; index++) {
      const response = await review(pod([rejected()], { namespace: 'shop' }));
      assert.equal(response.allowed, false, 'the cached namespace label still applies');
      await wait(60);
    }
    await until(async () => (await metric('probe_lint_circuit_breaker_state')) === 2, 'an open circuit');
    assert.ok((await metric('probe_lint_cluster_facts_age_seconds')) > ageAtOutage, 'the facts age while the API server is away');
    assert.ok((await metric('probe_lint_cluster_refresh_failures_total')) >= 3);
    assert.ok(
      (await review(pod([frequentExec()], { namespace: 'dev' }))).warnings.some((line: string) => line.endsWith('[exec-probe-dense-cluster]')),
      'the last known density is still used',
    );

    await harness.api.start(apiPort);
    denseCluster(harness.api);
    await until(async () => (await metric('probe_lint_circuit_breaker_state')) === 0, 'the circuit to close again');
    await until(async () => (await metric('probe_lint_cluster_facts_age_seconds')) < 0.5, 'fresh facts');
  });

  it('reads only what its RBAC allows: nodes and pods (list), namespaces (list, watch)', () => {
    for (const request of harness.api.requests) assert.match(request, /^\/api\/v1\/(nodes|pods|namespaces)\?/, request);
  });
});

describe('webhook with a live cluster whose API server hangs', () => {
  // A deadline far beyond the test: the API server, not a clock, decides when the refresh ends.
  const { harness, review } = webhookWithCluster({ refreshIntervalSeconds: 3600, guard: { deadlineSeconds: 3600 } });

  it('answers reviews while the API server hangs: admission never waits on it', { timeout: 120_000 }, async () => {
    // The API server holds the refresh's calls until the test releases them: every review below is
    // answered while a call is held, whatever the machine's speed (the deadline is far beyond the test).
    await until(() => harness.api.heldRequests === 0, 'no held call');
    harness.api.mode = 'hang';
    let settled = false;
    const pending = harness.access.refresher.refreshNow().then(() => (settled = true));
    try {
      await until(() => harness.api.heldRequests > 0, 'the refresh to reach the API server');
      for (let index = 0; index < 20; index++) {
        const response = await review(deployment([rejected()], { namespace: 'shop' }));
        assert.equal(response.allowed, false);
        assert.ok(harness.api.heldRequests > 0, `review ${index + 1} was answered while the refresh waited on the API server`);
      }
      assert.equal(settled, false, 'the refresh is still waiting on the API server');
    } finally {
      harness.api.mode = 'ok';
      harness.api.release();
    }
    await pending;
    assert.equal(settled, true);
  });
});

describe('lint never reads a cluster; probe-lint audit does', () => {
  let api: FakeApiServer;
  let kubeconfig: string;
  before(async () => {
    api = new FakeApiServer(pki);
    await api.start();
    denseCluster(api);
    const owned = (kind: string, name: string) => [{ apiVersion: 'v1', kind, name, uid: 'u', controller: true }];
    api.set('/apis/apps/v1/deployments', [
      deployment([rejected()], { namespace: 'shop', name: 'web' }),
      deployment([container('ok', { livenessProbe: { tcpSocket: { port: 1 } }, readinessProbe: { httpGet: { port: 2 } } })], {
        namespace: 'other',
        name: 'fine',
      }),
    ]);
    api.set('/apis/apps/v1/statefulsets', []);
    api.set('/apis/apps/v1/daemonsets', []);
    api.set('/apis/batch/v1/cronjobs', []);
    api.set('/apis/batch/v1/jobs', [
      {
        metadata: { name: 'nightly-123', namespace: 'shop', ownerReferences: owned('CronJob', 'nightly') },
        spec: { template: { spec: { restartPolicy: 'Never', containers: [rejected()] } } },
      },
    ]);
    // 80 pods on each node (dense), all owned by ReplicaSets, so audit skips them.
    const replicaSetPods = ['node-0', 'node-1', 'node-2']
      .flatMap((node) => podsOn(node, 80))
      .map((item) => ({ ...item, metadata: { ...item.metadata, ownerReferences: owned('ReplicaSet', 'rs') } }));
    api.set('/api/v1/pods', [
      ...replicaSetPods,
      {
        ...pod([rejected()], { namespace: 'shop', name: 'web-abc', ownerReferences: owned('ReplicaSet', 'web-7d') }),
        spec: { nodeName: 'node-1', containers: [rejected()] },
      },
      { ...pod([frequentExec()], { namespace: 'shop', name: 'debug' }), spec: { nodeName: 'node-1', containers: [frequentExec()] } },
    ]);
    kubeconfig = api.kubeconfig(directory);
  });
  after(() => api.stop());

  it('lint reads no cluster: --kubeconfig is refused, and a KUBECONFIG whose exec plugin would run is never read', async () => {
    const file = join(directory, 'agent.yaml');
    writeFileSync(file, podYaml('livenessProbe:\n  exec:\n    command: [x]\n  periodSeconds: 2\nreadinessProbe:\n  tcpSocket:\n    port: 80'));
    const refused = await runCliAsync([file, '--kubeconfig', kubeconfig]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--kubeconfig does not apply to `probe-lint lint` \(it is for: audit, serve\)/);
    // A kubeconfig as a repository might hold one: its credential plugin would run with the job's environment.
    const marker = join(directory, 'plugin-ran');
    const planted = join(directory, 'planted-kubeconfig');
    writeFileSync(
      planted,
      `apiVersion: v1\nkind: Config\nclusters: [{name: x, cluster: {server: "https://127.0.0.1:${api.port}", insecure-skip-tls-verify: true}}]\n` +
        `users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: [-c, "touch ${marker}"], interactiveMode: Never}}}]\n` +
        'contexts: [{name: x, context: {cluster: x, user: u}}]\ncurrent-context: x\n',
    );
    const requests = api.requests.length;
    const run = await runCliAsync([file, '--format', 'json'], { env: { KUBECONFIG: planted } });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).findings[0].severity, 'info', 'density unknown: no cluster was read');
    assert.equal(existsSync(marker), false, 'the exec plugin never ran');
    assert.equal(api.requests.length, requests, 'the API server was never called');
  });

  it('audit --all-namespaces lints every workload once, naming each as kind/namespace/name', async () => {
    const run = await runCliAsync(['audit', '--kubeconfig', kubeconfig, '--all-namespaces', '--format', 'json']);
    assert.equal(run.code, 1, run.stderr);
    const output = JSON.parse(run.stdout);
    const objects = [
      ...new Set(output.findings.map((finding: any) => `${finding.resource.kind}/${finding.resource.namespace}/${finding.resource.name}`)),
    ].sort();
    assert.deepEqual(objects, ['Deployment/shop/web', 'Pod/shop/debug'], 'owned Pods and Jobs are not linted twice');
    assert.ok(output.findings.every((finding: any) => finding.file === null && finding.line === null));
    assert.ok(
      output.findings.some((finding: any) => finding.rule === 'exec-probe-dense-cluster' && finding.severity === 'warning'),
      'density comes from the same cluster',
    );
    assert.equal(output.summary.resources, 3, 'two Deployments and the bare Pod');
    const text = (await runCliAsync(['audit', '--kubeconfig', kubeconfig, '-A'])).stdout;
    assert.match(text, /^ {2}Deployment\/shop\/web {2}error {4}readiness-termination-grace-period/m);
  });

  it('audit -n limits to one namespace, and a failing API server is exit 2 with a message', async () => {
    const run = await runCliAsync(['audit', '--kubeconfig', kubeconfig, '-n', 'other', '--format', 'json']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout).findings, []);
    assert.ok(api.requests.some((request) => request.startsWith('/apis/apps/v1/namespaces/other/deployments?')));
    api.mode = 'fail';
    try {
      const failed = await runCliAsync(['audit', '--kubeconfig', kubeconfig, '-A']);
      assert.equal(failed.code, 2);
      assert.match(failed.stderr, /cannot read the workloads from https:\/\/127\.0\.0\.1:\d+: GET \/apis\/apps\/v1\/deployments: HTTP 500/);
    } finally {
      api.mode = 'ok';
    }
  });
});
