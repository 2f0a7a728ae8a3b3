// Cluster facts at scale against the real API server: 5,000 Nodes and 150,000 Pods bound to them
// (spec.nodeName; no kubelet needed). The webhook's refresher reads density through its
// ServiceAccount, the exec-probe rule follows it, namespace labels arrive through the watch, and
// when the API server goes away the webhook keeps answering from what it knew while the circuit
// breaker opens; when it comes back, everything recovers.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { admissionReview } from '../admission.js';
import { CLI, eventually } from '../helpers.js';
import { httpsRequest } from '../webhook-client.js';
import { bulkClient, inParallel } from './bulk.js';
import { startCluster, type Cluster } from './cluster.js';
import {
  applyWebhookConfigurations,
  installChartWithoutWebhooks,
  metric,
  NAMESPACE,
  RELEASE,
  serviceAccountKubeconfig,
  renderChart,
  startWebhook,
  type RenderedChart,
  type Webhook,
} from './install.js';

const NODES = Number(process.env.PROBE_LINT_E2E_NODES ?? 5000);
const PODS = Number(process.env.PROBE_LINT_E2E_PODS ?? 150_000);
const PODS_PER_NODE = PODS / NODES;
const EVENTS = Math.min(PODS, Number(process.env.PROBE_LINT_E2E_EVENTS ?? 100_000));

let cluster: Cluster;
let chart: RenderedChart;
let webhook: Webhook;
const figures: Record<string, string | number> = {};

const until = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 120_000) => eventually(what, probe, timeoutMs, 250);

/** Whether the webhook logged the breaker's change to `state` (lines are written within a second: await it, do not race it). */
function breakerLogged(state: 'open' | 'closed'): boolean {
  return webhook
    .output()
    .split('\n')
    .some((line) => line.includes('cluster circuit breaker changed state') && line.includes(`"to":"${state}"`));
}

const execProbe = { livenessProbe: { exec: { command: ['/bin/check'] }, periodSeconds: 2 }, readinessProbe: { tcpSocket: { port: 8080 } } };
const deployment = (name: string, fields: Record<string, unknown>) =>
  JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'registry.example.com/app:1', ...fields }] } },
    },
  });

/** A review sent to the webhook directly (as the API server would), for when there is no API server. */
async function review(object: unknown): Promise<{ allowed: boolean; warnings?: string[] }> {
  const reply = await httpsRequest(webhook.port, '/validate', {
    body: JSON.stringify(admissionReview({ operation: 'CREATE', object: object as Record<string, unknown>, namespace: 'apps' })),
    ca: webhook.caCert,
    tls: { servername: `${RELEASE}.${NAMESPACE}.svc` },
  });
  return reply.json.response;
}

before(async () => {
  cluster = await startCluster();
  chart = renderChart([
    'rbac.audit=true',
    `config.cluster.densePodsPerNode=${Math.max(1, PODS_PER_NODE - 5)}`,
    'config.cluster.refreshIntervalSeconds=3',
    'config.cluster.guard.deadlineSeconds=20',
    'config.cluster.guard.backoffInitialSeconds=1',
    'config.cluster.guard.backoffMaxSeconds=1',
    'config.cluster.guard.failureThreshold=3',
    'config.cluster.guard.openSeconds=5',
  ]);
  // Everything but the webhook configurations first: the bulk of Pods is not the webhook's to review.
  await installChartWithoutWebhooks(cluster, chart);

  const client = bulkClient(cluster.server, cluster.admin);
  let started = Date.now();
  const failedNodes = await inParallel(NODES, 48, (index) =>
    client.post('/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: `node-${index}` },
      status: { capacity: { pods: '110' }, allocatable: { pods: '110' } },
    }),
  );
  assert.equal(failedNodes, 0);
  figures.nodesCreatedSeconds = (Date.now() - started) / 1000;
  const namespaces = 10;
  for (let index = 0; index < namespaces; index++) await cluster.kubectl(['create', 'namespace', `density-${index}`]);
  await until("the namespaces' default ServiceAccounts", async () => {
    const list = await cluster.api('GET', '/api/v1/serviceaccounts?fieldSelector=metadata.name=default');
    return list.json.items.filter((item: { metadata: { namespace: string } }) => item.metadata.namespace.startsWith('density-')).length === namespaces
      ? true
      : undefined;
  });
  started = Date.now();
  const failedPods = await inParallel(PODS, 48, (index) =>
    client.post(`/api/v1/namespaces/density-${index % namespaces}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `pod-${index}` },
      spec: { nodeName: `node-${index % NODES}`, automountServiceAccountToken: false, containers: [{ name: 'app', image: 'registry.example.com/app:1' }] },
    }),
  );
  assert.equal(failedPods, 0);
  figures.podsCreatedSeconds = (Date.now() - started) / 1000;
  // The kubelet's Events as it writes them (core/v1, counted): on even Pods failed liveness checks,
  // on odd ones a liveness kill.
  started = Date.now();
  const now = new Date().toISOString();
  const failedEvents = await inParallel(EVENTS, 48, (index) =>
    client.post(`/api/v1/namespaces/density-${index % namespaces}/events`, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `pod-${index}.probe` },
      involvedObject: { kind: 'Pod', apiVersion: 'v1', namespace: `density-${index % namespaces}`, name: `pod-${index}`, fieldPath: 'spec.containers{app}' },
      reason: index % 2 === 0 ? 'Unhealthy' : 'Killing',
      message:
        index % 2 === 0
          ? 'Liveness probe failed: Get "http://10.0.0.1:8080/health": context deadline exceeded'
          : 'Container app failed liveness probe, will be restarted',
      type: index % 2 === 0 ? 'Warning' : 'Normal',
      count: index % 2 === 0 ? 3 : 1,
      firstTimestamp: now,
      lastTimestamp: now,
      source: { component: 'kubelet', host: `node-${index % NODES}` },
    }),
  );
  assert.equal(failedEvents, 0);
  figures.eventsCreatedSeconds = (Date.now() - started) / 1000;
  client.close();

  await applyWebhookConfigurations(cluster, chart, chart);
  await cluster.kubectl(['create', 'namespace', 'apps']);
  webhook = await startWebhook(cluster, chart, { env: { LOG_LEVEL: 'debug' } });
});

after(async () => {
  console.log(`density figures: ${JSON.stringify(figures)}`);
  webhook?.child.kill('SIGTERM');
  await webhook?.exited;
  await cluster?.stop();
});

describe('cluster density at scale', () => {
  it('computes the right density from a paginated table of pods, and says how long it took', async () => {
    await until('the first density refresh', async () => ((await metric(webhook, 'probe_lint_cluster_nodes')) === NODES ? true : undefined));
    assert.equal(await metric(webhook, 'probe_lint_cluster_pods_per_node'), PODS_PER_NODE);
    figures.refreshSeconds = await metric(webhook, 'probe_lint_cluster_refresh_duration_seconds');
    // Log lines are written within a second.
    const refreshed = await until("the refresh's log line", () => {
      const lines = webhook
        .output()
        .split('\n')
        .filter((line) => line.includes('cluster density refreshed'))
        .map((line) => JSON.parse(line) as { listCalls: number; pods: number });
      return lines.length > 0 ? lines : undefined;
    });
    assert.equal(refreshed[0]!.pods, PODS, "the pods bound to nodes (the chart's own pods are unscheduled)");
    figures.listCallsPerRefresh = refreshed[0]!.listCalls;
    const allPods = await cluster.api('GET', '/api/v1/pods?limit=1');
    const total = 1 + Number(allPods.json.metadata.remainingItemCount ?? 0);
    assert.equal(refreshed[0]!.listCalls, Math.ceil(NODES / 500) + Math.ceil(total / 500), 'pages of 500 nodes, then pages of 500 pods');
    const status = readFileSync(`/proc/${webhook.child.pid}/status`, 'utf8');
    figures.webhookPeakRssMiB = Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024);
    figures.webhookRssMiB = Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024);
  });

  it('makes the exec-probe rule a warning on this dense cluster (an info while density is unknown)', async () => {
    const applied = await cluster.kubectl(['-n', 'apps', 'apply', '-f', '-'], { input: deployment('execs', execProbe) });
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(
      applied.stderr,
      new RegExp(`Warning: container "app": livenessProbe forks a process every 2 s \\(~${PODS_PER_NODE / 2}/s per node at ${PODS_PER_NODE} pods/node\\)`),
    );
  });

  it(`audits ${PODS} Pods with ${EVENTS} Events of runtime evidence, as the chart's ServiceAccount, and says how long it took and how much memory`, async () => {
    const kubeconfig = await serviceAccountKubeconfig(cluster);
    // The process's own peak RSS, written as it exits.
    const peak = "data:text/javascript,process.on('exit',()=>process.stderr.write('peak-rss '+process.resourceUsage().maxRSS+'\\n'))";
    const audit = (...extra: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string; seconds: number; peakMiB: number }>((resolve) => {
        const started = Date.now();
        const args = [
          '--import',
          peak,
          CLI,
          'audit',
          '-A',
          '--kubeconfig',
          kubeconfig,
          '--format',
          'compact',
          '--min-severity',
          'warning',
          '--fail-on',
          'never',
        ];
        const child = spawn(process.execPath, [...args, ...extra], { env: { ...process.env, NO_COLOR: '1' } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('close', (code) =>
          resolve({
            code,
            stdout,
            stderr,
            seconds: (Date.now() - started) / 1000,
            peakMiB: Math.round(Number(/peak-rss (\d+)/.exec(stderr)?.[1] ?? 0) / 1024),
          }),
        );
      });
    // The same audit without evidence first: what reading the Events and statuses adds.
    const specsOnly = await audit('--no-evidence');
    assert.equal(specsOnly.code, 0, specsOnly.stderr.slice(0, 2000));
    figures.auditSpecsOnlySeconds = specsOnly.seconds;
    figures.auditSpecsOnlyPeakRssMiB = specsOnly.peakMiB;
    const run = await audit();
    assert.equal(run.code, 0, run.stderr.slice(0, 2000));
    figures.auditSeconds = run.seconds;
    figures.auditPeakRssMiB = run.peakMiB;
    const kills = run.stdout.split('\n').filter((line) => line.includes('runtime-liveness-restarts'));
    assert.equal(kills.length, Math.floor(EVENTS / 2), 'one finding per Pod with a kill');
    assert.ok(
      kills.every((line) => /killed container app 1 time in the last 1h/.test(line)),
      kills.find((line) => !/killed container app 1 time/.test(line)),
    );
  });

  it('sees a namespace label change through its watch within seconds', async () => {
    const started = Date.now();
    await cluster.kubectl(['label', 'namespace', 'apps', 'probe-lint.dev/mode=enforce']);
    const typo = deployment('typo', { livenessProbe: { httpGet: { path: '/', port: 'htpp' } }, readinessProbe: { tcpSocket: { port: 8080 } } });
    await until(
      'a denial in the newly enforced namespace',
      async () => ((await cluster.kubectl(['-n', 'apps', 'create', '--dry-run=server', '-f', '-'], { input: typo })).code !== 0 ? true : undefined),
      15_000,
    );
    figures.labelSeenSeconds = (Date.now() - started) / 1000;
    assert.ok(figures.labelSeenSeconds < 10, `${figures.labelSeenSeconds} s`);
  });

  it('keeps answering from cached facts while the API server is down, opens the breaker, and recovers', async () => {
    await cluster.stopApiServer();
    const stoppedAt = Date.now();
    try {
      // Reviews go on, with the density known before.
      const answer = await review(JSON.parse(deployment('cached', execProbe)));
      assert.equal(answer.allowed, true);
      assert.ok(
        answer.warnings?.some((line) => line.includes(`at ${PODS_PER_NODE} pods/node`)),
        JSON.stringify(answer.warnings),
      );
      await until('the circuit to open', async () => ((await metric(webhook, 'probe_lint_circuit_breaker_state')) === 2 ? true : undefined), 60_000);
      figures.breakerOpenAfterSeconds = (Date.now() - stoppedAt) / 1000;
      const age = await metric(webhook, 'probe_lint_cluster_facts_age_seconds');
      assert.ok(age > 3, `the facts in use grow old (${age} s)`);
      await until('one log line per state change', () => (breakerLogged('open') ? true : undefined));
      assert.equal((await review(JSON.parse(deployment('still', execProbe)))).allowed, true, 'admission never waits on the API server');
    } finally {
      await cluster.startApiServer();
    }
    const restartedAt = Date.now();
    await until('the circuit to close', async () => ((await metric(webhook, 'probe_lint_circuit_breaker_state')) === 0 ? true : undefined), 60_000);
    await until('fresh facts', async () => ((await metric(webhook, 'probe_lint_cluster_facts_age_seconds')) < 5 ? true : undefined), 60_000);
    figures.recoveredAfterSeconds = (Date.now() - restartedAt) / 1000;
    await until('the log line of the closed circuit', () => (breakerLogged('closed') ? true : undefined));
  });
});
