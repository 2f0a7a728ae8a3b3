// An API server's answers are input too: a list that never ends, a continue token that repeats, a
// watch event that never ends. audit and the webhook's refresher read through one client, which
// stops at its bounds with an error that says why, instead of growing until the process dies.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AUDIT_READ_LIMITS, KubeClient, loadKubeConfig, RESPONSE_LIMITS } from '../src/cluster/kube-client.js';
import { FakeApiServer, nodes } from './fake-apiserver.js';
import { ROOT, runCliAsync, until } from './helpers.js';
import { makeTestPki } from './tls.js';

const WORKLOADS = ['/apis/apps/v1/deployments', '/apis/apps/v1/statefulsets', '/apis/apps/v1/daemonsets', '/apis/batch/v1/cronjobs', '/apis/batch/v1/jobs'];

describe('a hostile API server', () => {
  let api: FakeApiServer;
  let kubeconfig: string;

  before(async () => {
    api = new FakeApiServer(makeTestPki());
    await api.start();
    for (const path of [...WORKLOADS, '/api/v1/pods', '/api/v1/services', '/api/v1/namespaces']) api.set(path, []);
    api.set('/api/v1/nodes', nodes(2));
    kubeconfig = api.kubeconfig(mkdtempSync(join(tmpdir(), 'probe-lint-hostile-api-')));
  });
  after(() => api.stop());

  it('audit stops reading a list that never ends at the response limit, and says so', async () => {
    api.hostile = 'endless-list';
    api.hostileBytes = 0;
    try {
      const run = await runCliAsync(['audit', '--kubeconfig', kubeconfig, '-A']);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /the response is larger than 64 MiB; refusing to read more/);
      // It read its limit and a little more in flight, not the gigabyte the server would send.
      assert.ok(api.hostileBytes < RESPONSE_LIMITS.maxResponseBytes * 3, `the server wrote ${api.hostileBytes} bytes`);
    } finally {
      api.hostile = undefined;
    }
  });

  it('audit stops at a continue token it has seen before', async () => {
    api.hostile = 'repeated-continue';
    const requestsBefore = api.requests.length;
    try {
      const run = await runCliAsync(['audit', '--kubeconfig', kubeconfig, '-A']);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /the server returned the same continue token twice; the list would never end/);
      // The first page, then the page of the token, then the repeat is seen: a handful of requests per list.
      assert.ok(api.requests.length - requestsBefore < 20, `${api.requests.length - requestsBefore} requests`);
    } finally {
      api.hostile = undefined;
    }
  });

  it('a list whose continue tokens never repeat is read to at most its objects and bytes, whoever holds them', async () => {
    api.hostile = 'fresh-continue';
    try {
      const byItems = new KubeClient(loadKubeConfig(kubeconfig, undefined), { maxListItems: 2000 });
      let held = 0;
      await assert.rejects(
        byItems.listPaged('/api/v1/pods', {}, AbortSignal.timeout(10_000), (items) => (held += items.length)),
        /more than 2000 objects; refusing to read more/,
      );
      assert.equal(held, 2000, 'the page past the bound is never handed on');
      const byBytes = new KubeClient(loadKubeConfig(kubeconfig, undefined), { maxListBytes: 100 * 1024 });
      await assert.rejects(
        byBytes.listPaged('/api/v1/pods', {}, AbortSignal.timeout(10_000), () => {}),
        /more than 0\.09765625 MiB in all; refusing to read more/,
      );
      // audit reads through the same client with its default bounds: the million objects (2,000 pages) stop it.
      const run = await runCliAsync(['audit', '--kubeconfig', kubeconfig, '-A', '--no-evidence']);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /more than 1000000 objects; refusing to read more/);
    } finally {
      api.hostile = undefined;
    }
  });

  it("lists whose continue tokens never repeat are read to at most the client's bytes in all, across lists, below audit's CronJob memory limit", async () => {
    api.hostile = 'fresh-continue';
    try {
      const client = new KubeClient(loadKubeConfig(kubeconfig, undefined), { maxReadBytes: 400 * 1024 });
      let read = 0;
      // The first list takes part of the budget; the second, of another kind, stops where the sum passes it.
      await assert.rejects(
        client.listPaged('/api/v1/pods', {}, AbortSignal.timeout(10_000), () => read++).then(() => undefined),
        /MiB read from the cluster in all/,
      );
      assert.ok(read > 0);
      await assert.rejects(
        client.listPaged('/apis/apps/v1/deployments', {}, AbortSignal.timeout(10_000), () => {}),
        /more than 0\.390625 MiB read from the cluster in all, the most this run keeps; refusing to read more \(audit a namespace at a time with -n\)/,
      );
    } finally {
      api.hostile = undefined;
    }
    // audit's bound, parsed (about twice its bytes), fits the CronJob's memory limit the chart sets, with room to spare.
    const values = readFileSync(join(ROOT, 'charts/probe-lint/values.yaml'), 'utf8');
    const limit = /auditReports:[\s\S]*?limits:[\s\S]*?memory: (\d+)Gi/.exec(values);
    assert.ok(limit !== null, 'the audit CronJob has a memory limit');
    assert.ok(AUDIT_READ_LIMITS.maxReadBytes! * 3 <= Number(limit[1]) * 1024 ** 3, `${AUDIT_READ_LIMITS.maxReadBytes} bytes against ${limit[1]} Gi`);
  });

  it('a list is read to at most the page limit', async () => {
    const client = new KubeClient(loadKubeConfig(kubeconfig, undefined), { maxPages: 3 });
    api.set(
      '/api/v1/namespaces',
      Array.from({ length: 10 }, (_, index) => ({ metadata: { name: `ns-${index}` } })),
    );
    let pages = 0;
    await assert.rejects(
      client.listPaged('/api/v1/namespaces', { limit: 2 }, AbortSignal.timeout(10_000), () => pages++),
      /more than 3 pages; refusing to read more/,
    );
    assert.equal(pages, 3);
    api.set('/api/v1/namespaces', []);
  });

  it('a watch event that never ends is cut off at the event limit, and the watch ends with that error', async () => {
    api.hostile = 'endless-event';
    api.hostileBytes = 0;
    const client = new KubeClient(loadKubeConfig(kubeconfig, undefined), { maxEventBytes: 1024 * 1024 });
    try {
      const ended = await new Promise<unknown>((resolve) => {
        void client.watch('/api/v1/namespaces', {}, () => assert.fail('no event is whole'), resolve);
      });
      assert.match(String((ended as Error).message), /an event larger than 1 MiB; refusing to read more/);
      assert.ok(api.hostileBytes < 16 * 1024 * 1024, `the server wrote ${api.hostileBytes} bytes`);
    } finally {
      api.hostile = undefined;
    }
  });

  it("a watch whose start misses the caller's deadline is closed, not left open", async () => {
    const client = new KubeClient(loadKubeConfig(kubeconfig, undefined));
    await until(() => api.openConnections === 0, 'earlier connections to close');
    api.mode = 'hang';
    try {
      const deadline = new AbortController();
      const ended = new Promise<unknown>((resolve) => {
        void client.watch('/api/v1/namespaces', {}, () => assert.fail('no events'), resolve, deadline.signal);
      });
      await until(() => api.openConnections === 1, 'the watch to connect');
      deadline.abort(new Error('deadline'));
      await until(() => api.openConnections === 0, 'the hanging watch to be closed');
      await ended;
    } finally {
      api.mode = 'ok';
    }
  });

  it('a watch refused by the server ends with its status code', async () => {
    const client = new KubeClient(loadKubeConfig(kubeconfig, undefined));
    const ended = await new Promise<unknown>((resolve) => {
      void client.watch('/api/v1/nothing-here', {}, () => assert.fail('no events'), resolve);
    });
    assert.equal((ended as { statusCode?: number }).statusCode, 404);
  });
});
