// Cluster awareness against a local HTTPS server that speaks the Kubernetes list/watch wire
// format, through the real @kubernetes/client-node KubeConfig and Watch.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { CallGuard, CallNotAllowed, DeadlineExceeded, type Clock } from '../src/cluster/call-guard.js';
import { ClusterMetrics } from '../src/cluster/cluster-metrics.js';
import { ClusterFactsRefresher } from '../src/cluster/facts-refresher.js';
import { KubeClient, loadKubeConfig } from '../src/cluster/kube-client.js';
import { NamespaceCache } from '../src/cluster/namespace-cache.js';
import type { PodSummary } from '../src/cluster/runtime-evidence.js';
import { listWorkloads } from '../src/cluster/workloads.js';
import type { KubeObject } from '../src/model/resource.js';
import { createLogger } from '../src/webhook/logger.js';
import { AUDITED_COLLECTIONS, FakeApiServer, nodes, podsOn } from './fake-apiserver.js';
import { makeTestPki, type TestPki } from './tls.js';
import { until } from './helpers.js';

class ManualClock implements Clock {
  constructor(public time = 1_000_000) {}
  now() {
    return this.time;
  }
  advance(ms: number) {
    this.time += ms;
  }
}

class Lines extends Writable {
  lines: any[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) this.lines.push(JSON.parse(line));
    done();
  }
}

let pki: TestPki;
let directory: string;
before(() => {
  pki = makeTestPki();
  directory = mkdtempSync(join(tmpdir(), 'probe-lint-cluster-'));
});

function clientFor(api: FakeApiServer): KubeClient {
  return new KubeClient(loadKubeConfig(api.kubeconfig(directory), undefined));
}

const FALLBACK = { podsPerNode: undefined, densePodsPerNode: 50, source: 'unknown' as const };
const GUARD = { deadlineMs: 300, backoffInitialMs: 1000, backoffMaxMs: 300_000, failureThreshold: 10, openMs: 30 * 60_000 };

describe('density refresher', () => {
  let api: FakeApiServer;
  before(async () => {
    api = new FakeApiServer(pki);
    await api.start();
    api.set('/api/v1/nodes', nodes(4, 110));
    api.set('/api/v1/pods', [
      ...podsOn('node-0', 700),
      ...podsOn('node-1', 300),
      ...podsOn('node-2', 200),
      ...podsOn('node-3', 3),
      ...podsOn('node-3', 900, 'Succeeded'),
    ]);
  });
  after(() => api.stop());

  it('counts non-terminated pods per node over paginated lists and keeps only counts', async () => {
    const clock = new ManualClock();
    const refresher = new ClusterFactsRefresher(
      clientFor(api),
      new CallGuard(GUARD, clock, undefined, undefined),
      clock,
      { intervalMs: 60_000, thresholds: { densePodsPerNode: 50 }, fallback: FALLBACK },
      undefined,
    );
    assert.deepEqual(refresher.current(), FALLBACK, 'the fallback is used before the first refresh');
    assert.equal(await refresher.refreshNow(), true);
    const snapshot = refresher.latest!;
    assert.deepEqual(
      { nodes: snapshot.nodes, pods: snapshot.pods, mean: snapshot.meanPodsPerNode, p90: snapshot.p90PodsPerNode },
      { nodes: 4, pods: 1203, mean: 300.75, p90: 700 },
    );
    assert.ok(
      api.requests.some((request) => request.startsWith('/api/v1/pods?') && request.includes('continue=500')),
      'pods are read page by page',
    );
    assert.ok(api.requests.some((request) => request.includes('fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed')));
    assert.deepEqual(refresher.current(), { podsPerNode: 300.8, densePodsPerNode: 50, dense: true, source: 'cluster' });
    clock.advance(90_000);
    assert.equal(refresher.ageSeconds(), 90);
  });

  it('judges density as a fraction of node capacity when configured', async () => {
    const clock = new ManualClock();
    const make = (fraction: number) =>
      new ClusterFactsRefresher(
        clientFor(api),
        new CallGuard(GUARD, clock, undefined, undefined),
        clock,
        { intervalMs: 60_000, thresholds: { densePodsPerNode: 50, denseCapacityFraction: fraction }, fallback: FALLBACK },
        undefined,
      );
    // Per node: 700/110, 300/110, 200/110, 3/110 → mean fraction ≈ 2.73.
    const sparse = make(3);
    await sparse.refreshNow();
    assert.equal(sparse.current().dense, false);
    const dense = make(2.5);
    await dense.refreshNow();
    assert.equal(dense.current().dense, true);
  });
});

describe('call guard', () => {
  let api: FakeApiServer;
  before(async () => {
    api = new FakeApiServer(pki);
    await api.start();
    api.set('/api/v1/nodes', nodes(2));
    api.set('/api/v1/pods', podsOn('node-0', 10));
  });
  after(() => api.stop());

  it('backs off 1 s, 2 s, 4 s…, opens after 10 failures, half-opens after 30 min, closes on success', async () => {
    const clock = new ManualClock();
    const registry = new Registry();
    const logs = new Lines();
    const metrics = new ClusterMetrics(registry, () => undefined);
    const guard = new CallGuard(GUARD, clock, metrics, createLogger(logs));
    const refresher = new ClusterFactsRefresher(
      clientFor(api),
      guard,
      clock,
      { intervalMs: 60_000, thresholds: { densePodsPerNode: 50 }, fallback: FALLBACK },
      undefined,
    );
    const gauge = async () => (await metrics.circuitState.get()).values[0]!.value;
    const failures = async () => (await metrics.refreshFailures.get()).values.reduce((sum, value) => sum + value.value, 0);

    assert.equal(await refresher.refreshNow(), true);
    api.mode = 'fail';
    const delays: number[] = [];
    for (let failure = 1; failure <= 10; failure++) {
      const before = api.requests.length;
      assert.equal(await refresher.refreshNow(), false);
      assert.equal(api.requests.length, before + 1, 'one call per allowed attempt');
      if (failure < 10) {
        const delay = guard.retryAt - clock.now();
        delays.push(delay);
        assert.equal(guard.canCall(), false, 'no call during the backoff');
        clock.advance(delay);
      }
    }
    assert.deepEqual(delays, [1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000]);
    assert.equal(guard.state, 'open');
    assert.equal(await gauge(), 2);
    assert.equal(await failures(), 10);

    // While open: no call reaches the API server, and the last facts stay in use with their age.
    const requestsWhileOpen = api.requests.length;
    clock.advance(29 * 60_000);
    assert.equal(await refresher.refreshNow(), false);
    assert.equal(api.requests.length, requestsWhileOpen);
    assert.equal(refresher.current().source, 'cluster');
    assert.ok(refresher.ageSeconds()! > 29 * 60);

    // After 30 minutes one trial call goes through; a failure opens the circuit again.
    clock.advance(60_000);
    assert.equal(guard.canCall(), true);
    assert.equal(guard.state, 'half-open');
    assert.equal(await gauge(), 1);
    assert.equal(await refresher.refreshNow(), false);
    assert.equal(guard.state, 'open');

    // The next trial succeeds: closed again.
    api.mode = 'ok';
    clock.advance(30 * 60_000);
    assert.equal(await refresher.refreshNow(), true);
    assert.equal(guard.state, 'closed');
    assert.equal(await gauge(), 0);
    assert.equal(refresher.ageSeconds(), 0);

    const changes = logs.lines.filter((line) => line.msg === 'cluster circuit breaker changed state').map((line) => `${line.from}→${line.to}`);
    assert.deepEqual(changes, ['closed→open', 'open→half-open', 'half-open→open', 'open→half-open', 'half-open→closed']);
  });

  it('gives up on a call that hangs at the deadline, and counts it as a failure', async () => {
    const clock = new ManualClock();
    const guard = new CallGuard(GUARD, clock, undefined, undefined);
    api.mode = 'hang';
    try {
      await assert.rejects(
        guard.run('density', (signal) => clientFor(api).getJson('/api/v1/nodes', {}, signal)),
        DeadlineExceeded,
      );
      assert.equal(guard.failures, 1);
      await assert.rejects(
        guard.run('density', () => Promise.resolve(1)),
        CallNotAllowed,
      );
    } finally {
      api.mode = 'ok';
    }
  });
  it('gives each page of a list a deadline of its own: a list longer than one deadline completes, a page later than one fails', async () => {
    api.set(
      '/api/v1/pods',
      ['a', 'b', 'c', 'd', 'e'].map((name) => ({ metadata: { name } })),
    );
    const listed: string[] = [];
    const list = (signal: AbortSignal, answered?: () => void) =>
      clientFor(api).listPaged<{ metadata: { name: string } }>(
        '/api/v1/pods',
        { limit: 1 },
        signal,
        (items) => listed.push(...items.map((item) => item.metadata.name)),
        answered,
      );
    api.pageDelayMs = 120; // five pages: 600 ms, twice the guard's 300 ms deadline
    try {
      const started = Date.now();
      await new CallGuard(GUARD, new ManualClock(), undefined, undefined).run('list pods', list);
      assert.deepEqual(listed, ['a', 'b', 'c', 'd', 'e']);
      assert.ok(Date.now() - started >= 5 * 120, 'the list took longer than one deadline');
      // Without the pages telling it, the guard holds the whole list to one deadline.
      await assert.rejects(
        new CallGuard(GUARD, new ManualClock(), undefined, undefined).run('list pods', (signal) => list(signal)),
        /list pods: no answer within 300 ms/,
      );
      api.pageDelayMs = 400;
      await assert.rejects(new CallGuard(GUARD, new ManualClock(), undefined, undefined).run('list pods', list), DeadlineExceeded);
    } finally {
      api.pageDelayMs = 0;
      api.collections.delete('/api/v1/pods');
    }
  });
});

describe('namespace cache', () => {
  let api: FakeApiServer;
  before(async () => {
    api = new FakeApiServer(pki);
    await api.start();
    api.set('/api/v1/namespaces', [{ metadata: { name: 'shop', labels: { 'probe-lint.dev/mode': 'enforce' } } }, { metadata: { name: 'legacy', labels: {} } }]);
  });
  after(() => api.stop());

  it('lists, then follows the watch, and lists again after 410 Gone', async () => {
    const guard = new CallGuard({ ...GUARD, backoffInitialMs: 20 }, { now: () => Date.now() }, undefined, undefined);
    const cache = new NamespaceCache(clientFor(api), guard, { now: () => Date.now() }, undefined);
    cache.start();
    try {
      await until(() => cache.synced && api.openWatches === 1, 'the first list and watch');
      assert.equal(cache.labelsOf('shop')?.['probe-lint.dev/mode'], 'enforce');

      api.emit('/api/v1/namespaces', 'MODIFIED', { metadata: { name: 'legacy', labels: { 'probe-lint.dev/mode': 'off' } } });
      api.emit('/api/v1/namespaces', 'ADDED', { metadata: { name: 'new', labels: { team: 'a' } } });
      api.emit('/api/v1/namespaces', 'DELETED', { metadata: { name: 'shop' } });
      await until(() => cache.labelsOf('shop') === undefined && cache.labelsOf('new') !== undefined, 'watch events');
      assert.equal(cache.labelsOf('legacy')?.['probe-lint.dev/mode'], 'off');

      const lists = () => api.requests.filter((request) => request.startsWith('/api/v1/namespaces?limit=')).length;
      const listsBefore = lists();
      api.expireWatches();
      api.set('/api/v1/namespaces', [...(api.collections.get('/api/v1/namespaces') ?? []), { metadata: { name: 'while-away', labels: {} } }]);
      await until(() => lists() === listsBefore + 1 && api.openWatches === 1, 'a relist after 410 Gone');
      assert.ok(cache.labelsOf('while-away'), 'the relist sees what the watch missed');

      // A watch refused with HTTP 410 at the start (its resourceVersion already compacted) also relists.
      const listsNow = lists();
      api.oldestWatchable = api.resourceVersion + 5;
      api.resourceVersion += 5;
      for (const response of [...(api as any).watchers]) response.end();
      await until(() => lists() === listsNow + 1 && api.openWatches === 1, 'a relist after a 410 response');
      assert.ok(api.requests.some((request) => request.includes('watch=true') && request.includes('allowWatchBookmarks=true')));
    } finally {
      cache.stop();
    }
  });
});

describe('the workloads audit lists', () => {
  let api: FakeApiServer;
  before(async () => {
    api = new FakeApiServer(pki);
    await api.start();
  });
  after(() => api.stop());

  it('keeps what the rules and reports read, and lets the bookkeeping, the status and the last-applied copy go as each page arrives', async () => {
    for (const collection of AUDITED_COLLECTIONS) api.set(collection, []);
    const spec = { containers: [{ name: 'app', image: 'registry.example.com/app:1' }] };
    api.set('/api/v1/pods', [
      {
        metadata: {
          name: 'web',
          namespace: 'shop',
          uid: 'pod-uid',
          labels: { app: 'web' },
          annotations: { 'probe-lint.dev/ignore': 'missing-readiness-probe', 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ spec }) },
          managedFields: [{ manager: 'kubectl', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } }],
        },
        spec,
        status: { phase: 'Running', containerStatuses: [{ name: 'app', restartCount: 3 }] },
      },
    ]);
    api.set('/apis/batch/v1/jobs', [
      {
        metadata: {
          name: 'nightly-1',
          namespace: 'shop',
          ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'nightly', uid: 'cron-uid', controller: true }],
          managedFields: [{ manager: 'kube-controller-manager' }],
        },
        spec: { template: { spec } },
      },
    ]);
    const owned = { pods: [] as PodSummary[], jobs: [] as KubeObject[] };
    const guard = new CallGuard(GUARD, new ManualClock(), undefined, undefined);
    const objects = await listWorkloads(clientFor(api), guard, undefined, owned);
    assert.deepEqual(objects, [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'web',
          namespace: 'shop',
          uid: 'pod-uid',
          labels: { app: 'web' },
          annotations: { 'probe-lint.dev/ignore': 'missing-readiness-probe' },
        },
        spec,
      },
    ]);
    assert.deepEqual(
      owned.pods.map((pod) => pod.restarts),
      [[{ name: 'app', restartCount: 3 }]],
      "the Pod's restarts were read from its status before it was let go",
    );
    assert.deepEqual(owned.jobs, [
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {
          name: 'nightly-1',
          namespace: 'shop',
          ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'nightly', uid: 'cron-uid', controller: true }],
        },
      },
    ]);
  });

  it('takes items of any shape from the API server without crashing, and keeps what they hold', async () => {
    for (const collection of AUDITED_COLLECTIONS) api.set(collection, []);
    api.set('/apis/apps/v1/deployments', [
      null,
      'a string',
      { metadata: null, spec: {} },
      { metadata: { name: 'a', annotations: null }, spec: {} },
      { metadata: { name: 'b', annotations: 'not a map', managedFields: 7 }, status: 'gone' },
    ] as never[]);
    const guard = new CallGuard(GUARD, new ManualClock(), undefined, undefined);
    const objects = await listWorkloads(clientFor(api), guard, undefined, { pods: [], jobs: [] });
    assert.deepEqual(objects, [
      { apiVersion: 'apps/v1', kind: 'Deployment' },
      { apiVersion: 'apps/v1', kind: 'Deployment' },
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: null, spec: {} },
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'a', annotations: null }, spec: {} },
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'b', annotations: 'not a map' } },
    ]);
  });
});
