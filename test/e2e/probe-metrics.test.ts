// audit --probe-metrics against a real kubelet: the node (kubelet, containerd, runc) has a
// documentation address (203.0.113.10) on the loopback of the suite's network namespace, so the
// API server proxies to it (it refuses loopback nodes), and Debian's real Prometheus scrapes that
// kubelet's /metrics/probes over TLS with a client certificate. Three Deployments: one whose
// readiness endpoint answers in 1.6 s against a 2 s timeout, one that fails every fifth check, one
// that is healthy. Both sources must report the slow probe — by its mean: a 1.37 kubelet exposes no
// classic buckets for the duration histogram (NativeHistograms on by default) — with a patch the
// API server accepts, the flaky probe with the share the app itself answered, and
// nothing for the healthy one; an unreachable source is a notice.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCliAsync } from '../helpers.js';
import { freePort, startCluster, type Cluster } from './cluster.js';
import { installChartWithoutWebhooks, renderChart, serviceAccountKubeconfig } from './install.js';
import { appDeployment, appPodSpec, nodeLeftovers, nodeUnavailable, startNode, type Node } from './node.js';

const unavailable = nodeUnavailable() ?? (spawnable('prometheus') ? undefined : 'prometheus is not installed (Debian: apt-get install prometheus)');
if (unavailable !== undefined && process.env.CI !== undefined) throw new Error(`the probe metrics suite cannot run: ${unavailable}`);

function spawnable(command: string): boolean {
  try {
    return spawn(command, ['--version'], { stdio: 'ignore' }).pid !== undefined;
  } catch {
    return false;
  }
}

const NODE_ADDRESS = '203.0.113.10';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let cluster: Cluster;
let node: Node;
let prometheus: ChildProcess | undefined;
let prometheusUrl: string;

/** Debian's Prometheus, scraping the node's kubelet at /metrics/probes every second, over TLS with a client certificate of the cluster's CA. */
async function startPrometheus(): Promise<string> {
  const nodeObject = await cluster.api('GET', `/api/v1/nodes/${NODE_ADDRESS}`);
  const kubeletPort = nodeObject.json.status.daemonEndpoints.kubeletEndpoint.Port as number;
  const directory = join(cluster.directory, 'prometheus');
  mkdirSync(join(directory, 'data'), { recursive: true });
  const client = cluster.pki.issue('prometheus', { client: true });
  writeFileSync(
    join(directory, 'prometheus.yml'),
    JSON.stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      scrape_configs: [
        {
          job_name: 'kubelet-probes',
          scheme: 'https',
          metrics_path: '/metrics/probes',
          honor_labels: true,
          tls_config: { ca_file: cluster.pki.caCert, cert_file: client.cert, key_file: client.key },
          static_configs: [{ targets: [`${NODE_ADDRESS}:${kubeletPort}`] }],
        },
      ],
    }),
  );
  const port = await freePort();
  prometheus = spawn(
    'prometheus',
    [
      `--config.file=${join(directory, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(directory, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      // Scrapes the protobuf format, and keeps the native histograms a 1.37 kubelet exposes.
      '--enable-feature=native-histograms',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  prometheus.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-20_000)));
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    const up = await fetch(`${url}/api/v1/query?query=up`)
      .then((reply) => reply.json())
      .catch(() => undefined);
    if (up?.data?.result?.[0]?.value?.[1] === '1') return url;
    if (attempt > 300 || prometheus.exitCode !== null) throw new Error(`Prometheus does not scrape the kubelet: ${JSON.stringify(up?.data)}\n${log}`);
    await sleep(200);
  }
}

interface JsonFinding {
  rule: string;
  resource: { kind: string; namespace: string | null; name: string | null };
  container?: string;
  message: string;
  evidence?: any;
  fix?: { op: string; path: string; value: unknown }[];
}

/** `probe-lint audit` in `scope` as `kubeconfig`'s account, as JSON, never failing on findings. */
function auditJson(kubeconfig: string, scope: string[], extra: string[]) {
  return runCliAsync(['audit', ...scope, '--kubeconfig', kubeconfig, '--format', 'json', '--fail-on', 'never', ...extra]);
}

/** The app's own record of the checks it answered: how many, and how many with 500. */
function answered(log: string): { checks: number; failed: number } {
  const lines = readFileSync(join(node.shared, `${log}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { event: string; status?: number });
  const checks = lines.filter((line) => line.event === 'check');
  return { checks: checks.length, failed: checks.filter((line) => line.status === 500).length };
}

function lifecycle(featureGates: Record<string, boolean>): void {
  before(async () => {
    if (unavailable !== undefined) return;
    cluster = await startCluster();
    node = await startNode(cluster, { address: NODE_ADDRESS, featureGates });
    // The scheduled audit's account, with nodes/proxy for the kubelet source.
    await installChartWithoutWebhooks(
      cluster,
      renderChart(['rbac.audit=true', 'auditReports.enabled=true', 'auditReports.schedule=0 0 1 1 *', 'auditReports.probeMetrics=kubelet']),
    );
    prometheusUrl = await startPrometheus();
  });
  after(async () => {
    if (unavailable !== undefined) return;
    prometheus?.kill('SIGKILL');
    await node?.stop();
    const left = nodeLeftovers(cluster);
    await cluster?.stop();
    assert.deepEqual(left, []);
  });
}

for (const nativeHistograms of [true, false])
  describe(
    `audit measures the probes as the kubelet does (NativeHistograms ${nativeHistograms ? 'on, as 1.37 has it by default' : 'off: classic buckets'})`,
    { skip: unavailable },
    () => {
      lifecycle({ NativeHistograms: nativeHistograms });
      const findingsOf = (stdout: string) =>
        (JSON.parse(stdout) as { findings: JsonFinding[] }).findings.filter((finding) => finding.rule.startsWith('runtime-probe-'));
      const objectOf = ({ resource }: JsonFinding) => `${resource.kind}/${resource.namespace}/${resource.name}`;
      const byRule = (findings: JsonFinding[]) => findings.map((finding) => `${finding.rule} ${objectOf(finding)} ${finding.container}`).sort();
      let kubeletFindings: JsonFinding[];
      const kubeletSlow = () => kubeletFindings.find((finding) => finding.rule === 'runtime-probe-slow')!;

      it('reads each kubelet through the node proxy over the window: the slow probe by its 99th percentile bucket or, without classic buckets, its mean, with a patch the API server takes, the flaky one at the share the app answered, the healthy one not at all', async () => {
        const objects = [
          appDeployment(
            'slow',
            appPodSpec(node, {
              port: 18300,
              log: 'slow',
              probes: { readinessProbe: { httpGet: { path: '/check/readiness' }, timeoutSeconds: 2, periodSeconds: 3 } },
              env: { HEALTH: 'slow', SLOW_MS: '1600' },
            }),
          ),
          appDeployment(
            'flaky',
            appPodSpec(node, {
              port: 18301,
              log: 'flaky',
              probes: { readinessProbe: { httpGet: { path: '/check/readiness' }, periodSeconds: 1 } },
              env: { FLAKY_EVERY: '5' },
            }),
          ),
          appDeployment(
            'healthy',
            appPodSpec(node, {
              port: 18302,
              log: 'healthy',
              probes: {
                readinessProbe: { httpGet: { path: '/check/readiness' }, periodSeconds: 1 },
                livenessProbe: { httpGet: { path: '/check/liveness' }, periodSeconds: 1 },
              },
            }),
          ),
        ];
        const applied = await cluster.kubectl(['apply', '-f', '-'], { input: objects.map((object) => JSON.stringify(object)).join('\n') });
        assert.equal(applied.code, 0, applied.stderr);
        for (let attempt = 0; ; attempt++) {
          const pods = (await cluster.api('GET', '/api/v1/namespaces/default/pods')).json.items as any[];
          if (pods.length === 3 && pods.every((pod) => pod.status?.containerStatuses?.[0]?.ready === true)) break;
          if (attempt > 600) throw new Error(`the Pods did not become ready: ${JSON.stringify(pods.map((pod) => pod.status?.containerStatuses))}`);
          await sleep(100);
        }

        const kubeconfig = await serviceAccountKubeconfig(cluster, 'probe-lint-audit');
        const before = { flaky: answered('flaky') };
        const audit = await auditJson(kubeconfig, ['-A'], ['--probe-metrics', 'kubelet', '--probe-window', '30s']);
        const afterwards = { flaky: answered('flaky') };
        assert.equal(audit.code, 0, audit.stderr);
        assert.equal(audit.stderr, '');
        kubeletFindings = findingsOf(audit.stdout);
        assert.deepEqual(byRule(kubeletFindings), ['runtime-probe-failing Deployment/default/flaky app', 'runtime-probe-slow Deployment/default/slow app']);

        const slow = kubeletFindings.find((finding) => finding.rule === 'runtime-probe-slow')!;
        assert.equal(slow.evidence.source, 'kubelet');
        if (nativeHistograms) {
          // NativeHistograms on: the text format carries only the +Inf bucket of the duration histogram, so the
          // latency is the mean (sum ÷ count): 1.6 s and a little, and the patch more than twice it.
          assert.equal(slow.evidence.latencySeconds.p99, null);
          assert.ok(slow.evidence.latencySeconds.mean >= 1.6 && slow.evidence.latencySeconds.mean < 1.8, JSON.stringify(slow.evidence));
          assert.match(slow.message, /they took 1\.6\d? s on average .* against timeoutSeconds 2 s/);
        } else {
          // Classic buckets: 1.6 s lies in the (1, 2.5] bucket, for the median and the 99th percentile alike.
          assert.deepEqual({ p50: slow.evidence.latencySeconds.p50, p99: slow.evidence.latencySeconds.p99 }, { p50: 2.5, p99: 2.5 });
          assert.match(slow.message, /99% at most 2\.5 s .* against timeoutSeconds 2 s/);
        }
        assert.equal(slow.evidence.probeResults.failed, 0);
        assert.ok(slow.evidence.probeResults.successful >= 8 && slow.evidence.probeResults.successful <= 12, JSON.stringify(slow.evidence));
        assert.deepEqual(slow.fix, [{ op: 'add', path: '/spec/template/spec/containers/0/readinessProbe/timeoutSeconds', value: nativeHistograms ? 4 : 6 }]);
        assert.ok(
          (slow.fix?.[0]?.value as number) > 2 * (slow.evidence.latencySeconds.p99 ?? slow.evidence.latencySeconds.mean),
          'the patch covers the latency with margin',
        );
        const dryRun = await cluster.kubectl([
          'patch',
          'deployment',
          'slow',
          '-n',
          'default',
          '--type=json',
          '-p',
          JSON.stringify(slow.fix),
          '--dry-run=server',
        ]);
        assert.equal(dryRun.code, 0, dryRun.stderr);

        // The app answered every fifth check with 500; the kubelet's counters over the window say the same share.
        const flaky = kubeletFindings.find((finding) => finding.rule === 'runtime-probe-failing')!;
        const { successful, failed, unknown } = flaky.evidence.probeResults;
        const counted = successful + failed + unknown;
        const app = { checks: afterwards.flaky.checks - before.flaky.checks, failed: afterwards.flaky.failed - before.flaky.failed };
        assert.ok(counted >= 27 && counted <= app.checks, `${counted} checks counted, ${app.checks} answered while audit ran`);
        assert.ok(Math.abs(failed / counted - 0.2) <= 0.05, `${failed} of ${counted} failed`);
        assert.ok(Math.abs(failed / counted - app.failed / app.checks) <= 0.05, `kubelet ${failed}/${counted}, app ${app.failed}/${app.checks}`);
        assert.match(
          flaky.message,
          /readinessProbe of container app .* failed\. Every failureThreshold \(3\) failures in a row take the Pod out of its Services/,
        );
      });

      it("reads the same from Prometheus' HTTP API over --since, and the two sources agree", async () => {
        const kubeconfig = await serviceAccountKubeconfig(cluster, 'probe-lint-audit');
        const audit = await auditJson(kubeconfig, ['-A'], ['--probe-metrics', prometheusUrl, '--since', '1m']);
        assert.equal(audit.code, 0, audit.stderr);
        assert.equal(audit.stderr, '');
        const findings = findingsOf(audit.stdout);
        assert.deepEqual(byRule(findings), byRule(kubeletFindings));
        const slow = findings.find((finding) => finding.rule === 'runtime-probe-slow')!;
        assert.equal(slow.evidence.source, 'prometheus');
        if (nativeHistograms)
          // Prometheus keeps the native histogram, whose buckets the kubelet's text format lacks: the 1.6 s checks in (1.54, 1.68].
          assert.equal(slow.evidence.latencySeconds.p99, 1.68, JSON.stringify(slow.evidence));
        else assert.equal(slow.evidence.latencySeconds.p99, kubeletSlow().evidence.latencySeconds.p99);
        assert.ok(Math.abs(slow.evidence.latencySeconds.mean - kubeletSlow().evidence.latencySeconds.mean) < 0.05, JSON.stringify(slow.evidence));
        assert.deepEqual(slow.fix, kubeletFindings.find((finding) => finding.rule === 'runtime-probe-slow')!.fix);
        const flaky = findings.find((finding) => finding.rule === 'runtime-probe-failing')!.evidence.probeResults;
        const share = flaky.failed / (flaky.successful + flaky.failed + flaky.unknown);
        assert.ok(Math.abs(share - 0.2) <= 0.05, JSON.stringify(flaky));
      });

      it(
        'scopes the metrics to the namespace, and says so when a source cannot be read while the rest of the audit is reported',
        { skip: !nativeHistograms && 'once is enough' },
        async () => {
          const kubeconfig = await serviceAccountKubeconfig(cluster, 'probe-lint-audit');
          const other = await auditJson(kubeconfig, ['-n', 'kube-system'], ['--probe-metrics', prometheusUrl, '--since', '1m']);
          assert.equal(other.code, 0, other.stderr);
          assert.deepEqual(findingsOf(other.stdout), []);
          assert.match(other.stderr, /no prober_probe_total series in namespace kube-system/);

          const down = await auditJson(kubeconfig, ['-A'], ['--probe-metrics', 'http://127.0.0.1:1', '--since', '1m']);
          assert.equal(down.code, 0, down.stderr);
          assert.match(down.stderr, /warning: cannot read probe metrics from Prometheus at http:\/\/127\.0\.0\.1:1: .*ECONNREFUSED.*; auditing without them/);
          const objects = (JSON.parse(down.stdout) as { findings: JsonFinding[] }).findings.map(objectOf);
          assert.ok(objects.includes('Deployment/default/slow'), 'the specs are still audited');

          // An account without nodes/proxy: the API server refuses the proxy, and audit says which node and why.
          for (const command of [
            ['create', 'serviceaccount', 'reader', '-n', 'probe-lint'],
            [
              'create',
              'clusterrole',
              'reader',
              '--verb=list',
              '--resource=pods,services,deployments.apps,statefulsets.apps,daemonsets.apps,jobs.batch,cronjobs.batch,events.events.k8s.io,nodes',
            ],
            ['create', 'clusterrolebinding', 'reader', '--clusterrole=reader', '--serviceaccount=probe-lint:reader'],
          ]) {
            const made = await cluster.kubectl(command);
            assert.equal(made.code, 0, made.stderr);
          }
          const plain = await serviceAccountKubeconfig(cluster, 'reader');
          const refused = await auditJson(plain, ['-A'], ['--probe-metrics', 'kubelet', '--probe-window', '1s']);
          assert.equal(refused.code, 0, refused.stderr);
          assert.deepEqual(findingsOf(refused.stdout), []);
          assert.match(
            refused.stderr,
            new RegExp(`probe metrics from the kubelets' /metrics/probes: cannot read node ${NODE_ADDRESS.replaceAll('.', '\\.')}: .*403`),
          );
        },
      );
    },
  );
