// audit --probe-metrics against local servers: an API server whose node proxy answers each
// kubelet's /metrics/probes in the kubelet's own text format (read twice, the window apart), and a
// Prometheus HTTP API (an HTTP server answering /api/v1/query as Prometheus does). Both sources
// must give the same findings for the same counts; a source that cannot be read is a notice and
// the rest of the audit is still reported. The real kubelet and Debian's Prometheus are in
// test/e2e/probe-metrics.test.ts.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { metricSamples, MetricsTextError } from '../src/cluster/metrics-text.js';
import { ProbeCounts, refusedSamplesNotice } from '../src/cluster/probe-counts.js';
import { addProbeMetricsText } from '../src/cluster/kubelet-probe-metrics.js';
import { bucketQuantile } from '../src/engine/runtime-evidence.js';
import { container, deployment } from './admission.js';
import { FakeApiServer, nodes } from './fake-apiserver.js';
import { runCliAsync } from './helpers.js';
import { makeTestPki } from './tls.js';

const BOUNDS = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'];

/** A kubelet's /metrics/probes for some probes, as prober_manager.go registers them. */
function kubeletText(
  probes: { namespace: string; pod: string; container: string; type: string; successful: number; failed: number; seconds: number }[],
  classicBuckets = true,
): string {
  const lines = [
    '# HELP prober_probe_total [BETA] Cumulative number of a liveness, readiness or startup probe for a container by result.',
    '# TYPE prober_probe_total counter',
  ];
  for (const probe of probes)
    for (const result of ['successful', 'failed', 'unknown'] as const)
      lines.push(
        `prober_probe_total{container="${probe.container}",namespace="${probe.namespace}",pod="${probe.pod}",pod_uid="0c1d",probe_type="${probe.type}",result="${result}"} ${result === 'successful' ? probe.successful : result === 'failed' ? probe.failed : 0}`,
      );
  lines.push('# TYPE prober_probe_duration_seconds histogram');
  for (const probe of probes) {
    const labels = `container="${probe.container}",namespace="${probe.namespace}",pod="${probe.pod}",probe_type="${probe.type}"`;
    // A 1.37 kubelet (NativeHistograms on by default) writes only the +Inf bucket of this histogram.
    for (const bound of classicBuckets ? BOUNDS : ['+Inf'])
      lines.push(
        `prober_probe_duration_seconds_bucket{${labels},le="${bound}"} ${Number(bound === '+Inf' ? Infinity : bound) >= probe.seconds ? probe.successful : 0}`,
      );
    lines.push(
      `prober_probe_duration_seconds_sum{${labels}} ${probe.successful * probe.seconds}`,
      `prober_probe_duration_seconds_count{${labels}} ${probe.successful}`,
    );
  }
  return lines.join('\n') + '\n';
}

describe('the metrics text format', () => {
  it('reads the wanted families, label escapes included, and skips the rest', () => {
    const text = [
      '# HELP x y',
      'go_goroutines 12',
      'prober_probe_total{container="a\\"b",namespace="n\\\\s",pod="p\\nq",probe_type="Readiness",result="failed"} 3 1700000000000',
      'prober_probe_duration_seconds_bucket{le="+Inf",probe_type="Liveness"} +Inf',
      'prober_probe_total 1e3',
    ].join('\n');
    const samples = [...metricSamples(text, new Set(['prober_probe_total', 'prober_probe_duration_seconds_bucket']))];
    assert.deepEqual(
      samples.map((sample) => [sample.name, { ...sample.labels }, sample.value]),
      [
        ['prober_probe_total', { container: 'a"b', namespace: 'n\\s', pod: 'p\nq', probe_type: 'Readiness', result: 'failed' }, 3],
        ['prober_probe_duration_seconds_bucket', { le: '+Inf', probe_type: 'Liveness' }, Infinity],
        ['prober_probe_total', {}, 1000],
      ],
    );
  });

  it('names the line and column of what does not parse, and keeps label names off prototypes', () => {
    const wanted = new Set(['m']);
    for (const [text, message] of [
      ['ok 1\nm{a="x} 1', /line 2, column \d+: unterminated label value/],
      ['m{a=x} 1', /line 1, column 4: expected ="…" after a/],
      ['m{a="\\t"} 1', /unknown escape/],
      ['m{a="x"} one', /line 1: "one" is not a sample value/],
      ['{a="x"} 1', /line 1: no metric name/],
    ] as const)
      assert.throws(
        () => [...metricSamples(text, wanted)],
        (error: Error) => error instanceof MetricsTextError && message.test(error.message),
      );
    const [sample] = [...metricSamples('m{__proto__="x",constructor="y"} 1', wanted)];
    assert.equal(Object.getPrototypeOf(sample!.labels), null);
    assert.equal(sample!.labels.__proto__, 'x');
  });
});

describe('probe counts', () => {
  it('leave out samples that are no count (+Inf, NaN, 1e308, negative) and say how many, so no sum prints as Infinity or NaN', () => {
    const counts = new ProbeCounts();
    const labels = { namespace: 'shop', pod: 'web-1', container: 'web', probe_type: 'Readiness' };
    for (const value of [Infinity, NaN, 1e308, -1, Number.MAX_SAFE_INTEGER + 2]) counts.addResult({ ...labels, result: 'failed' }, value);
    counts.addResult({ ...labels, result: 'successful' }, 7);
    counts.addDuration(labels, 'sumSeconds', 1e308);
    const series = [...counts.series.values()][0]!;
    assert.deepEqual(series.results, { successful: 7, failed: 0, unknown: 0 });
    assert.equal(series.duration.sumSeconds, 0);
    assert.equal(counts.refused, 6);
    assert.equal(refusedSamplesNotice(counts.refused), '6 samples were left out: not a count (negative, not a finite number, or past 2^53)');
    assert.equal(refusedSamplesNotice(0), undefined);
  });

  it('become counts over the window: a new series from zero, a reset counter from zero, buckets too', () => {
    const before = new ProbeCounts();
    addProbeMetricsText(
      kubeletText([
        { namespace: 'shop', pod: 'web-1', container: 'web', type: 'Readiness', successful: 100, failed: 5, seconds: 0.3 },
        { namespace: 'shop', pod: 'web-2', container: 'web', type: 'Readiness', successful: 500, failed: 50, seconds: 0.3 },
      ]),
      'shop',
      before,
    );
    const later = new ProbeCounts();
    addProbeMetricsText(
      kubeletText([
        { namespace: 'shop', pod: 'web-1', container: 'web', type: 'Readiness', successful: 106, failed: 5, seconds: 0.3 },
        { namespace: 'shop', pod: 'web-2', container: 'web', type: 'Readiness', successful: 4, failed: 2, seconds: 0.3 },
        { namespace: 'shop', pod: 'web-3', container: 'web', type: 'Liveness', successful: 6, failed: 0, seconds: 2 },
        { namespace: 'other', pod: 'x', container: 'x', type: 'Liveness', successful: 6, failed: 0, seconds: 2 },
      ]),
      'shop',
      later,
    );
    const window = later.since(before);
    const results = Object.fromEntries([...window.series.values()].map((series) => [`${series.pod}/${series.probe}`, series.results]));
    assert.deepEqual(results, {
      'web-1/readinessProbe': { successful: 6, failed: 0, unknown: 0 },
      'web-2/readinessProbe': { successful: 4, failed: 2, unknown: 0 },
      'web-3/livenessProbe': { successful: 6, failed: 0, unknown: 0 },
    });
    const web3 = [...window.series.values()].find((series) => series.pod === 'web-3')!;
    assert.equal(bucketQuantile(web3.buckets, 0.99), 2.5);
    assert.equal(bucketQuantile(new Map([[Infinity, 0]]), 0.5), undefined);
  });
});

/** A Prometheus HTTP API answering instant queries from the given counts, as increase() over the range would. */
class FakePrometheus {
  server: Server | HttpsServer | undefined;
  readonly queries: { query: string; authorization: string | undefined }[] = [];
  answer: 'ok' | 'error' | 'html' = 'ok';
  /** Stores native histograms of a 1.37 kubelet: the classic buckets hold only +Inf, the native ones the real bounds (powers of 2^(1/8)). */
  native = false;
  constructor(
    private readonly probes: Parameters<typeof kubeletText>[0],
    private readonly tls?: { cert: string; key: string },
  ) {}
  async start(): Promise<string> {
    const handler = (req: IncomingMessage, res: ServerResponse) => this.handle(req, res);
    this.server = this.tls ? createHttpsServer({ cert: readFileSync(this.tls.cert), key: readFileSync(this.tls.key) }, handler) : createServer(handler);
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${(this.server.address() as { port: number }).port}/prom`;
  }
  stop(): Promise<void> {
    return new Promise((resolve) => this.server!.close(() => resolve()));
  }
  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const query = url.searchParams.get('query') ?? '';
    this.queries.push({ query, authorization: req.headers.authorization });
    if (url.pathname !== '/prom/api/v1/query' || this.answer === 'html') {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html>not found</html>');
      return;
    }
    if (this.answer === 'error') {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'error', errorType: 'bad_data', error: 'parse error' }));
      return;
    }
    const namespace = /namespace="([^"]*)"/.exec(query)?.[1];
    const probes = this.probes.filter((probe) => namespace === undefined || probe.namespace === namespace);
    const labels = (probe: (typeof probes)[number]) => ({ namespace: probe.namespace, pod: probe.pod, container: probe.container, probe_type: probe.type });
    const now = Date.now() / 1000;
    const part = /prober_probe_duration_seconds_(sum|count)/.exec(query)?.[1];
    const nativeQuery = /prober_probe_duration_seconds[{[]/.test(query);
    const nativeBucket = (seconds: number) => {
      const index = Math.ceil(Math.log2(seconds) * 8);
      return [0, String(2 ** ((index - 1) / 8)), String(2 ** (index / 8))];
    };
    const result = nativeQuery
      ? this.native
        ? probes.map((probe) => ({
            metric: labels(probe),
            histogram: [
              now,
              {
                count: String(probe.successful),
                sum: String(probe.successful * probe.seconds),
                buckets: [[...nativeBucket(probe.seconds), String(probe.successful)]],
              },
            ],
          }))
        : []
      : part
        ? probes.map((probe) => ({ metric: labels(probe), value: [now, String(part === 'sum' ? probe.successful * probe.seconds : probe.successful)] }))
        : query.includes('prober_probe_total')
          ? probes.flatMap((probe) =>
              (['successful', 'failed', 'unknown'] as const).map((outcome) => ({
                metric: { ...labels(probe), result: outcome },
                // increase() extrapolates: not whole numbers.
                value: [now, String((outcome === 'successful' ? probe.successful : outcome === 'failed' ? probe.failed : 0) * 1.0004)],
              })),
            )
          : probes.flatMap((probe) =>
              (this.native ? ['+Inf'] : BOUNDS).map((bound) => ({
                metric: { ...labels(probe), le: bound },
                value: [now, String(Number(bound === '+Inf' ? Infinity : bound) >= probe.seconds ? probe.successful : 0)],
              })),
            );
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result } }));
  }
}

describe('audit --probe-metrics', () => {
  let api: FakeApiServer;
  let kubeconfig: string;
  let directory: string;
  // In the window: web's readiness is slow (1–2.5 s against 2 s) and fails 10% (across its two Pods); db is healthy; a Pod of
  // another namespace is left out with -n shop.
  const window = [
    { namespace: 'shop', pod: 'web-7d9f8-aaaaa', container: 'web', type: 'Readiness', successful: 18, failed: 2, seconds: 1.6 },
    { namespace: 'shop', pod: 'web-7d9f8-bbbbb', container: 'web', type: 'Readiness', successful: 18, failed: 2, seconds: 1.6 },
    { namespace: 'shop', pod: 'web-7d9f8-aaaaa', container: 'web', type: 'Liveness', successful: 6, failed: 0, seconds: 0.004 },
    { namespace: 'shop', pod: 'db-0', container: 'db', type: 'Liveness', successful: 6, failed: 0, seconds: 0.004 },
    { namespace: 'other', pod: 'x-0', container: 'x', type: 'Liveness', successful: 6, failed: 6, seconds: 9 },
  ];
  const earlier = window.map((probe) => ({ ...probe, successful: 1000, failed: 3 }));
  const later = window.map((probe) => ({ ...probe, successful: 1000 + probe.successful, failed: 3 + probe.failed }));
  const owned = (kind: string, name: string) => [{ apiVersion: 'v1', kind, name, uid: 'u', controller: true }];

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'probe-lint-metrics-'));
    api = new FakeApiServer(makeTestPki());
    await api.start();
    api.set('/api/v1/nodes', nodes(2));
    api.set('/api/v1/services', []);
    const web = container(
      'web',
      { readinessProbe: { httpGet: { path: '/ready', port: 80 }, timeoutSeconds: 2 }, livenessProbe: { tcpSocket: { port: 80 } } },
      { ports: [{ containerPort: 80 }] },
    );
    api.set('/apis/apps/v1/deployments', [deployment([web], { namespace: 'shop', name: 'web' })]);
    api.set('/apis/apps/v1/statefulsets', [
      {
        metadata: { name: 'db', namespace: 'shop' },
        spec: {
          template: {
            spec: { containers: [container('db', { livenessProbe: { tcpSocket: { port: 5432 } }, readinessProbe: { tcpSocket: { port: 5432 } } })] },
          },
        },
      },
    ]);
    api.set('/apis/apps/v1/daemonsets', []);
    api.set('/apis/batch/v1/cronjobs', []);
    api.set('/apis/batch/v1/jobs', []);
    api.set('/apis/events.k8s.io/v1/events', []);
    const pod = (name: string, node: string, owner: Record<string, unknown>[], labels: Record<string, string> = {}) => ({
      metadata: { name, namespace: 'shop', labels, ownerReferences: owner },
      spec: { nodeName: node },
      status: { phase: 'Running' },
    });
    api.set('/api/v1/pods', [
      pod('web-7d9f8-aaaaa', 'node-0', owned('ReplicaSet', 'web-7d9f8'), { 'pod-template-hash': '7d9f8' }),
      pod('web-7d9f8-bbbbb', 'node-1', owned('ReplicaSet', 'web-7d9f8'), { 'pod-template-hash': '7d9f8' }),
      pod('db-0', 'node-0', owned('StatefulSet', 'db')),
    ]);
    kubeconfig = api.kubeconfig(directory);
  });
  after(() => api.stop());

  const audit = async (...extra: string[]) => {
    const run = await runCliAsync(['audit', '-n', 'shop', '--kubeconfig', kubeconfig, '--format', 'json', '--fail-on', 'never', ...extra]);
    assert.equal(run.code, 0, run.stderr);
    const findings = (JSON.parse(run.stdout) as { findings: { rule: string; container?: string; message: string; evidence?: any; fix?: any }[] }).findings;
    return { findings: findings.filter((finding) => finding.rule.startsWith('runtime-probe-')), stderr: run.stderr };
  };
  const feedNodes = () => {
    const onNode = (node: string, probes: typeof window) =>
      kubeletText(probes.filter((probe) => (probe.pod === 'web-7d9f8-bbbbb' ? 'node-1' : 'node-0') === node || probe.namespace === 'other'));
    for (const node of ['node-0', 'node-1']) api.nodeMetrics.set(node, [onNode(node, earlier), onNode(node, later)]);
  };
  const summary = (findings: Awaited<ReturnType<typeof audit>>['findings']) =>
    findings.map((finding) => ({
      rule: finding.rule,
      container: finding.container,
      results: finding.evidence.probeResults,
      latency: finding.evidence.latencySeconds,
    }));

  it('reads each node that runs the audited Pods twice, the window apart, and reports the slow and the failing probe with their evidence', async () => {
    feedNodes();
    api.requests.length = 0;
    const { findings } = await audit('--probe-metrics', 'kubelet', '--probe-window', '1s');
    assert.deepEqual(api.requests.filter((request) => request.includes('/proxy/')).sort(), [
      '/api/v1/nodes/node-0/proxy/metrics/probes',
      '/api/v1/nodes/node-0/proxy/metrics/probes',
      '/api/v1/nodes/node-1/proxy/metrics/probes',
      '/api/v1/nodes/node-1/proxy/metrics/probes',
    ]);
    assert.deepEqual(summary(findings), [
      { rule: 'runtime-probe-failing', container: 'web', results: { successful: 36, failed: 4, unknown: 0 }, latency: { p50: 2.5, p99: 2.5, mean: 1.6 } },
      { rule: 'runtime-probe-slow', container: 'web', results: { successful: 36, failed: 4, unknown: 0 }, latency: { p50: 2.5, p99: 2.5, mean: 1.6 } },
    ]);
    const slow = findings.find((finding) => finding.rule === 'runtime-probe-slow')!;
    assert.equal(slow.evidence.source, 'kubelet');
    assert.equal(slow.evidence.window, '1s');
    assert.equal(slow.evidence.pods, 2);
    assert.match(slow.message, /99% at most 2\.5 s .* against timeoutSeconds 2 s/);
    // More than twice the 2.5 s bucket bound; the probe's pointer is the Deployment's.
    assert.deepEqual(slow.fix, [{ op: 'add', path: '/spec/template/spec/containers/0/readinessProbe/timeoutSeconds', value: 6 }]);
  });

  it('carries the measurements into PolicyReports as properties, like every runtime finding', async () => {
    feedNodes();
    const run = await runCliAsync([
      'audit',
      '-n',
      'shop',
      '--kubeconfig',
      kubeconfig,
      '--format',
      'policyreport',
      '--fail-on',
      'never',
      '--probe-metrics',
      'kubelet',
      '--probe-window',
      '1s',
    ]);
    assert.equal(run.code, 0, run.stderr);
    const results = (
      JSON.parse(run.stdout) as { items: { results?: { policy: string; category: string; properties: Record<string, string> }[] }[] }
    ).items.flatMap((report) => report.results ?? []);
    const slow = results.find((result) => result.policy === 'runtime-probe-slow')!;
    assert.equal(slow.category, 'runtime');
    assert.deepEqual(Object.fromEntries(Object.entries(slow.properties).filter(([key]) => /^(source|window|pods|probeResults|latencySeconds)/.test(key))), {
      source: 'kubelet',
      window: '1s',
      pods: '2',
      'probeResults.successful': '36',
      'probeResults.failed': '4',
      'probeResults.unknown': '0',
      'latencySeconds.p50': '2.5',
      'latencySeconds.p99': '2.5',
      'latencySeconds.mean': '1.6',
    });
  });

  it('measures by the mean where the kubelet exposes only the +Inf bucket (1.37, NativeHistograms on)', async () => {
    for (const node of ['node-0', 'node-1']) {
      const onNode = (probes: typeof window) =>
        kubeletText(
          probes.filter((probe) => (probe.pod === 'web-7d9f8-bbbbb' ? 'node-1' : 'node-0') === node),
          false,
        );
      api.nodeMetrics.set(node, [onNode(earlier), onNode(later)]);
    }
    const { findings } = await audit('--probe-metrics', 'kubelet', '--probe-window', '1s');
    const slow = findings.find((finding) => finding.rule === 'runtime-probe-slow')!;
    assert.deepEqual(slow.evidence.latencySeconds, { p50: null, p99: null, mean: 1.6 });
    assert.match(slow.message, /they took 1\.6 s on average .* against timeoutSeconds 2 s/);
    // More than twice the mean.
    assert.deepEqual(slow.fix, [{ op: 'add', path: '/spec/template/spec/containers/0/readinessProbe/timeoutSeconds', value: 4 }]);
  });

  it('gives the same findings from Prometheus, sends its bearer token, and scopes the query to the namespace and --since', async () => {
    const prometheus = new FakePrometheus(window);
    const url = await prometheus.start();
    try {
      writeFileSync(join(directory, 'token'), 'prom-token\n');
      const { findings } = await audit('--probe-metrics', url, '--since', '2h30m', '--prometheus-token-file', join(directory, 'token'));
      assert.deepEqual(summary(findings), [
        { rule: 'runtime-probe-failing', container: 'web', results: { successful: 36, failed: 4, unknown: 0 }, latency: { p50: 2.5, p99: 2.5, mean: 1.6 } },
        { rule: 'runtime-probe-slow', container: 'web', results: { successful: 36, failed: 4, unknown: 0 }, latency: { p50: 2.5, p99: 2.5, mean: 1.6 } },
      ]);
      assert.equal(findings[0]!.evidence.source, 'prometheus');
      assert.equal(prometheus.queries.length, 5);
      for (const { query, authorization } of prometheus.queries) {
        assert.equal(authorization, 'Bearer prom-token');
        assert.match(query, /\{namespace="shop"\}\[2h30m\]\)\)$/);
        assert.match(query, /^sum by \(namespace, pod, container, probe_type(, result|, le)?\) \(increase\(prober_probe_/);
      }
    } finally {
      await prometheus.stop();
    }
  });

  it("reads a native histogram's buckets where Prometheus stores them (a 1.37 kubelet's), instead of the classic +Inf alone", async () => {
    const prometheus = new FakePrometheus(window);
    prometheus.native = true;
    const url = await prometheus.start();
    try {
      const { findings } = await audit('--probe-metrics', url);
      const slow = findings.find((finding) => finding.rule === 'runtime-probe-slow')!;
      // 1.6 s lies in the native bucket (2^(5/8), 2^(6/8)] = (1.54, 1.68].
      assert.deepEqual(slow.evidence.latencySeconds, { p50: 1.68, p99: 1.68, mean: 1.6 });
      assert.match(slow.message, /half took at most 1\.68 s and 99% at most 1\.68 s/);
      assert.deepEqual(slow.fix, [{ op: 'add', path: '/spec/template/spec/containers/0/readinessProbe/timeoutSeconds', value: 4 }]);
      assert.match(
        prometheus.queries.at(-1)!.query,
        /^sum by \(namespace, pod, container, probe_type\) \(increase\(prober_probe_duration_seconds\{namespace="shop"\}\[1h\]\)\)$/,
      );
    } finally {
      await prometheus.stop();
    }
  });

  it('trusts the CA given for an https Prometheus, and only that', async () => {
    const pki = makeTestPki();
    const prometheus = new FakePrometheus(window, pki.issue('prometheus', { serverNames: ['127.0.0.1'] }));
    const url = await prometheus.start();
    try {
      const trusted = await audit('--probe-metrics', url, '--prometheus-ca-file', pki.caCert);
      assert.deepEqual(trusted.findings.map((finding) => finding.rule).sort(), ['runtime-probe-failing', 'runtime-probe-slow']);
      const untrusted = await audit('--probe-metrics', url);
      assert.match(untrusted.stderr, /cannot read probe metrics from Prometheus at https:\/\/127\.0\.0\.1:\d+\/prom: .*certificate/);
      assert.deepEqual(untrusted.findings, []);
    } finally {
      await prometheus.stop();
    }
  });

  it('says which source could not be read and why, and still reports the rest of the audit', async () => {
    // One node refuses the proxy: the other is read.
    feedNodes();
    api.nodeMetrics.set('node-1', [503]);
    const partly = await audit('--probe-metrics', 'kubelet', '--probe-window', '1s');
    assert.match(partly.stderr, /warning: probe metrics from the kubelets' \/metrics\/probes: cannot read node node-1: .*503/);
    assert.deepEqual(
      summary(partly.findings).map((finding) => finding.results),
      [
        { successful: 18, failed: 2, unknown: 0 },
        { successful: 18, failed: 2, unknown: 0 },
      ],
    );

    const prometheus = new FakePrometheus(window);
    const url = await prometheus.start();
    try {
      for (const [answer, said] of [
        ['error', /cannot read probe metrics from Prometheus at http:\/\/127\.0\.0\.1:\d+\/prom: HTTP 400: parse error; auditing without them/],
        ['html', /cannot read probe metrics from Prometheus at .*: HTTP 404, not a Prometheus API answer \(not JSON\)/],
      ] as const) {
        prometheus.answer = answer;
        const run = await audit('--probe-metrics', url);
        assert.match(run.stderr, said);
        assert.deepEqual(run.findings, []);
      }
    } finally {
      await prometheus.stop();
    }
    // Nothing listens there any more.
    const down = await audit('--probe-metrics', url);
    assert.match(down.stderr, /cannot read probe metrics from Prometheus at .*ECONNREFUSED/);
    // Credentials in the URL are never shown.
    const secret = await audit('--probe-metrics', url.replace('http://', 'http://user:s3cret@'));
    assert.doesNotMatch(secret.stderr, /s3cret/);
  });

  it('refuses options that do not go together, naming them', async () => {
    for (const [args, message] of [
      [['--probe-window', '30s'], /--probe-window needs --probe-metrics/],
      [['--probe-metrics', 'kubelet', '--no-evidence'], /--probe-metrics and --no-evidence exclude each other/],
      [['--probe-metrics', 'kubelet', '--prometheus-token-file', 'x'], /--prometheus-token-file is for a Prometheus --probe-metrics/],
      [['--probe-metrics', 'ftp://x'], /http:\/\/ or https:\/\//],
      [['--probe-metrics', 'https://p.example', '--probe-window', '1m'], /--probe-window is for --probe-metrics kubelet/],
      [['--probe-metrics', 'kubelet', '--probe-window', '2h'], /up to 1h/],
    ] as const) {
      const run = await runCliAsync(['audit', '--kubeconfig', kubeconfig, ...args]);
      assert.equal(run.code, 2);
      assert.match(run.stderr, message);
    }
    const run = await runCliAsync([
      'audit',
      '-n',
      'shop',
      '--kubeconfig',
      kubeconfig,
      '--probe-metrics',
      'https://p.example',
      '--prometheus-ca-file',
      join(directory, 'missing.pem'),
    ]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /cannot read --prometheus-ca-file .*missing\.pem/);
  });
});

describe('a Prometheus URL that does not parse', () => {
  it('is named without its user name and password', async () => {
    const { prometheusUrl } = await import('../src/cluster/prometheus-url.js');
    for (const text of ['https://admin:hunter2@prom etheus:9090', 'http://hunter2@[::1', 'https://a:b@c@host name/x?y']) {
      const problem = prometheusUrl(text);
      assert.equal(typeof problem, 'string');
      assert.doesNotMatch(problem as string, /hunter2|a:b|admin/);
      assert.match(problem as string, /…@/);
    }
    const run = await runCliAsync(['audit', '--probe-metrics', 'https://admin:hunter2@prom etheus:9090']);
    assert.equal(run.code, 2);
    assert.doesNotMatch(run.stderr, /hunter2/);
    assert.match(run.stderr, /"https:\/\/…@prom etheus:9090" is not a URL/);
  });
});
