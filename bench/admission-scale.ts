// What a webhook replica holds, measured on the real API server: probe-lint's chart installed by
// helm with its own image, its Pods run by the real kubelet under a CPU limit each (CFS quota), and a
// rollout storm — thousands of Pods created as fast as the API server admits them, each reviewed by
// the validating and the mutating webhook through the chart's Service (the API server picks an
// endpoint per call). The same storm runs with no webhook in the path (a namespace the chart
// excludes) and with the webhook, taking turns, at 1, 2 and 4 replicas. For each: Pods admitted per
// second, admission requests per second per replica, the create latency the client saw (p50, p99),
// the API server's own account of each webhook call (mean, and its histogram's bucket of the p99,
// against the webhook's timeout), and what the replicas' processes spent: CPU per review, CFS
// throttling, peak RSS. Each run prints a table for docs/performance.md. Nothing is asserted about
// speed or refusals (a saturated replica that misses its own probes leaves the Service, and its Pods
// are refused: that is a measurement); only that the storm without a webhook admitted everything
// and the webhooks saw every admitted Pod.
//   npm run bench:scale
//   PROBE_LINT_SCALE_PODS=5000 PROBE_LINT_SCALE_REPLICAS=1,2,4 PROBE_LINT_SCALE_CPU=250m PROBE_LINT_SCALE_CLIENTS=64
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { bucketBound, metricSamples } from '../src/cluster/metrics-text.js';
import { bucketQuantile } from '../src/engine/runtime-evidence.js';
import { eventually } from '../test/helpers.js';
import { bulkClient } from '../test/e2e/bulk.js';
import { chartOnNode, chartPodsUnavailable, helmRelease, isReady, serveProcesses, webhookPods } from '../test/e2e/chart-release.js';
import { createNamespace, type Cluster } from '../test/e2e/cluster.js';
import { NAMESPACE, RELEASE } from '../test/e2e/install.js';
import type { Node } from '../test/e2e/node.js';
import { percentile } from './statistics.js';

const PODS = Number(process.env.PROBE_LINT_SCALE_PODS ?? 5000);
const REPLICAS = (process.env.PROBE_LINT_SCALE_REPLICAS ?? '1,2,4').split(',').map(Number);
const CPU_LIMIT = process.env.PROBE_LINT_SCALE_CPU ?? '250m';
const CLIENTS = Number(process.env.PROBE_LINT_SCALE_CLIENTS ?? 64);
/** The chart's default: what the API server waits for an answer. */
const TIMEOUT_SECONDS = 5;
/** Pods created before each storm, so that connections, caches and JIT are warm. */
const WARM_UP = 300;

const unavailable = chartPodsUnavailable();
if (unavailable !== undefined && process.env.CI !== undefined) throw new Error(`the admission scale benchmark cannot run: ${unavailable}`);

let cluster: Cluster;
let node: Node;

before(async () => {
  if (unavailable !== undefined) return;
  ({ cluster, node } = await chartOnNode([
    `replicaCount=${REPLICAS[0]}`,
    `resources.requests.cpu=${CPU_LIMIT}`,
    `resources.limits.cpu=${CPU_LIMIT}`,
    // A review that is lost or late fails the Pod it belongs to: the storm counts it.
    'webhook.failurePolicy=Fail',
    `webhook.timeoutSeconds=${TIMEOUT_SECONDS}`,
    // The storms that no webhook sees, one namespace per turn.
    `webhook.excludeNamespaces={${REPLICAS.map((replicas) => `unchecked-${replicas}`).join(',')}}`,
  ]));
});

after(async () => {
  if (unavailable !== undefined) return;
  await node?.stop();
  await cluster?.stop();
});

/** The n-th Pod of a storm: names, image, port and paths differ from every other's; a scheduling gate keeps it off the node. */
function stormPod(n: number): Record<string, unknown> {
  const port = 8000 + (n % 1000);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `pod-${n}`, labels: { app: `app-${n % 50}` } },
    spec: {
      schedulingGates: [{ name: 'probe-lint.test/held' }],
      automountServiceAccountToken: false,
      containers: [
        {
          name: `web-${n}`,
          image: `registry.example.com/web:${n}`,
          ports: [{ name: 'http', containerPort: port }],
          livenessProbe: { httpGet: { path: `/livez/${n}`, port: 'http' }, initialDelaySeconds: 45, timeoutSeconds: 10 },
          readinessProbe: { httpGet: { path: `/readyz/${n}`, port: 'http' } },
        },
        { name: `sidecar-${n}`, image: `registry.example.com/sidecar:${n}`, livenessProbe: { exec: { command: ['/bin/check', String(n)] }, periodSeconds: 5 } },
      ],
    },
  };
}

interface StormResult {
  seconds: number;
  failed: string[];
  latencies: number[];
}

/** Creates Pods first…first+count-1 in `namespace` with CLIENTS requests in flight. */
async function storm(namespace: string, first: number, count: number): Promise<StormResult> {
  const client = bulkClient(cluster.server, cluster.admin, CLIENTS);
  const latencies: number[] = [];
  const failed: string[] = [];
  let next = first;
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (next < first + count) {
      const index = next++;
      const sent = process.hrtime.bigint();
      const { status, message } = await client.create(`/api/v1/namespaces/${namespace}/pods`, stormPod(index));
      latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
      if (status !== 201) failed.push(`pod-${index}: HTTP ${status}: ${message}`);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  client.close();
  return { seconds, failed, latencies: latencies.sort((a, b) => a - b) };
}

const WEBHOOK_DURATION = 'apiserver_admission_webhook_admission_duration_seconds';
/** Per webhook: the cumulative count per bucket bound, and the seconds of all calls (the histogram's _sum). */
type WebhookCalls = Map<string, { buckets: Map<number, number>; seconds: number }>;

/** The API server's histogram of its calls to probe-lint's two webhooks. */
async function webhookCalls(): Promise<WebhookCalls> {
  const text = String((await cluster.api('GET', '/metrics', undefined, { accept: 'text/plain' })).json);
  const calls: WebhookCalls = new Map();
  for (const sample of metricSamples(text, new Set([`${WEBHOOK_DURATION}_bucket`, `${WEBHOOK_DURATION}_sum`]))) {
    if (!sample.labels.name?.endsWith('.probe-lint.dev')) continue;
    const call = calls.get(sample.labels.name) ?? { buckets: new Map<number, number>(), seconds: 0 };
    if (sample.name.endsWith('_sum')) call.seconds += sample.value;
    else {
      const bound = bucketBound(sample.labels.le ?? '');
      call.buckets.set(bound, (call.buckets.get(bound) ?? 0) + sample.value);
    }
    calls.set(sample.labels.name, call);
  }
  return calls;
}

/** What the storm added to each webhook's histogram. */
function callsDuring(before: WebhookCalls, after: WebhookCalls): WebhookCalls {
  return new Map(
    [...after].map(([name, call]) => {
      const earlier = before.get(name);
      const buckets = new Map([...call.buckets].map(([bound, count]) => [bound, count - (earlier?.buckets.get(bound) ?? 0)]));
      return [name, { buckets, seconds: call.seconds - (earlier?.seconds ?? 0) }];
    }),
  );
}

/** How many calls a webhook's histogram counted (its +Inf bucket). */
const callCount = (call: { buckets: Map<number, number> } | undefined): number => call?.buckets.get(Infinity) ?? 0;

interface ReplicaUsage {
  pid: string;
  /** CPU seconds (user + system) of the serve process. */
  cpuSeconds: number;
  /** CFS periods of the Pod's cgroup, and those in which it was throttled. */
  periods: number;
  throttledPeriods: number;
  /** The serve process's peak RSS so far (VmHWM), in MB. */
  peakRssMb: number;
}

const TICKS_PER_SECOND = 100;

/** Each replica's CPU so far and its cgroup's throttling, read from /proc and the cpu hierarchy. */
function replicaUsage(): ReplicaUsage[] {
  return serveProcesses().map(({ pid }) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th of the line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    const cpuCgroup = readFileSync(`/proc/${pid}/cgroup`, 'utf8')
      .split('\n')
      .map((line) => line.split(':'))
      .find((parts) => parts[1]?.split(',').includes('cpu'))?.[2];
    const cpuStat = cpuCgroup === undefined ? '' : readFileSync(`/sys/fs/cgroup/cpu${cpuCgroup}/cpu.stat`, 'utf8');
    const counter = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(cpuStat)?.[1] ?? NaN);
    const peakRssMb = Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
    return { pid, cpuSeconds, periods: counter('nr_periods'), throttledPeriods: counter('nr_throttled'), peakRssMb };
  });
}

/** How often the kubelet found the webhook's own probes failing, by probe ("Readiness", "Liveness"), from its Unhealthy Events. */
async function webhookProbeFailures(): Promise<Map<string, number>> {
  const events = (await cluster.api('GET', `/api/v1/namespaces/${NAMESPACE}/events?fieldSelector=reason%3DUnhealthy`)).json.items as any[];
  const failures = new Map<string, number>();
  for (const event of events) {
    const probe = /^(\w+) probe failed/.exec(event.message ?? '')?.[1];
    if (probe !== undefined) failures.set(probe, (failures.get(probe) ?? 0) + (event.count ?? event.series?.count ?? 1));
  }
  return failures;
}

interface Step {
  replicas: number;
  /** The same storm, in the same turn, into a namespace the webhook does not see. */
  unchecked: StormResult;
  result: StormResult;
  calls: WebhookCalls;
  usage: ReplicaUsage[];
  /** The webhook's own probe failures during the storm, by probe. */
  probeFailures: Map<string, number>;
}

/** Scales the release to `replicas` and waits until the API server has that many ready endpoints for its Service. */
async function scaleTo(replicas: number): Promise<void> {
  helmRelease(cluster, 'upgrade', [`replicaCount=${replicas}`]);
  await eventually(
    `${replicas} ready webhook endpoints`,
    async () => {
      const pods = (await webhookPods(cluster)).filter((pod) => pod.metadata.deletionTimestamp === undefined);
      const slices = (
        await cluster.api('GET', `/apis/discovery.k8s.io/v1/namespaces/${NAMESPACE}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3D${RELEASE}`)
      ).json.items as any[];
      const ready = slices.flatMap((slice) => slice.endpoints ?? []).filter((endpoint: any) => endpoint.conditions?.ready === true);
      return pods.length === replicas && pods.every(isReady) && ready.length === replicas && serveProcesses().length === replicas ? true : undefined;
    },
    240_000,
    500,
  );
}

/** One turn: a storm that no webhook sees, then the same storm reviewed by `replicas` replicas. */
async function measure(replicas: number): Promise<Step> {
  // Excluded by name: the install lists these namespaces in webhook.excludeNamespaces.
  await createNamespace(cluster, `unchecked-${replicas}`);
  await createNamespace(cluster, `storm-${replicas}`);
  await storm(`unchecked-${replicas}`, 0, WARM_UP);
  const unchecked = await storm(`unchecked-${replicas}`, WARM_UP, PODS);
  await storm(`storm-${replicas}`, 0, WARM_UP);
  const callsBefore = await webhookCalls();
  const usageBefore = new Map(replicaUsage().map((usage) => [usage.pid, usage]));
  const failuresBefore = await webhookProbeFailures();
  const result = await storm(`storm-${replicas}`, WARM_UP, PODS);
  const usageAfter = replicaUsage();
  const calls = callsDuring(callsBefore, await webhookCalls());
  // The kubelet's Events of the storm's last probes are written a moment later.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const probeFailures = new Map([...(await webhookProbeFailures())].map(([probe, count]) => [probe, count - (failuresBefore.get(probe) ?? 0)]));
  const usage = usageAfter.map((now) => {
    const then = usageBefore.get(now.pid);
    return {
      pid: now.pid,
      cpuSeconds: now.cpuSeconds - (then?.cpuSeconds ?? 0),
      periods: now.periods - (then?.periods ?? 0),
      throttledPeriods: now.throttledPeriods - (then?.throttledPeriods ?? 0),
      peakRssMb: now.peakRssMb,
    };
  });
  return { replicas, unchecked, result, calls, usage, probeFailures };
}

const VALIDATE = 'validate.probe-lint.dev';
const MUTATE = 'mutate.probe-lint.dev';
const reviewsOf = (step: Step): number => callCount(step.calls.get(VALIDATE)) + callCount(step.calls.get(MUTATE));

function report(steps: Step[]): string {
  const lines = [
    `admission at scale: ${PODS} Pods per storm (2 containers, probes on both), ${CLIENTS} requests in flight, webhook replicas limited to ${CPU_LIMIT} CPU each, failurePolicy Fail, timeout ${TIMEOUT_SECONDS} s`,
    '',
    '| webhook replicas | Pods/s admitted (no webhook, same turn) | reviews/s per replica | create p50 / p99 ms (no webhook) | webhook call mean, p99 bucket (API server) | CPU per review | replica CPU ÷ limit | periods throttled | replica peak RSS | own probes failed | Pods refused |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const limitCores = CPU_LIMIT.endsWith('m') ? Number(CPU_LIMIT.slice(0, -1)) / 1000 : Number(CPU_LIMIT);
  const latency = (result: StormResult) => `${percentile(result.latencies, 0.5).toFixed(0)} / ${percentile(result.latencies, 0.99).toFixed(0)}`;
  for (const step of steps) {
    const { result, unchecked } = step;
    const reviews = reviewsOf(step);
    const call = (name: string) => {
      const measured = step.calls.get(name);
      const bound = measured === undefined ? undefined : bucketQuantile(measured.buckets, 0.99);
      const mean = measured === undefined || callCount(measured) === 0 ? NaN : (measured.seconds / callCount(measured)) * 1000;
      return `${name.split('.')[0]} ${mean.toFixed(1)} ms, ≤ ${bound === undefined ? '—' : bound * 1000} ms`;
    };
    const cpu = step.usage.reduce((sum, usage) => sum + usage.cpuSeconds, 0);
    const periods = step.usage.reduce((sum, usage) => sum + usage.periods, 0);
    const throttled = step.usage.reduce((sum, usage) => sum + usage.throttledPeriods, 0);
    lines.push(
      [
        step.replicas,
        `${(PODS / result.seconds).toFixed(0)} (${(PODS / unchecked.seconds).toFixed(0)})`,
        (reviews / result.seconds / step.replicas).toFixed(0),
        `${latency(result)} (${latency(unchecked)})`,
        `${call(VALIDATE)}; ${call(MUTATE)}`,
        `${((cpu * 1000) / reviews).toFixed(2)} ms`,
        step.usage.map((usage) => (usage.cpuSeconds / result.seconds / limitCores).toFixed(2)).join(', '),
        `${((100 * throttled) / periods).toFixed(0)}%`,
        `${Math.max(...step.usage.map((usage) => usage.peakRssMb)).toFixed(0)} MB`,
        [...step.probeFailures]
          .filter(([, count]) => count > 0)
          .map(([probe, count]) => `${probe.toLowerCase()} ${count}`)
          .join(', ') || '0',
        result.failed.length,
      ]
        .join(' | ')
        .replace(/^/, '| ') + ' |',
    );
  }
  const reasons = new Set(steps.flatMap((step) => step.result.failed.map((failure) => failure.replace(/^pod-\d+: /, ''))));
  if (reasons.size > 0) lines.push('', 'why Pods were refused:', ...[...reasons].slice(0, 5).map((reason) => `  ${reason}`));
  return lines.join('\n');
}

describe('admission at scale', { skip: unavailable ?? false }, () => {
  it(`admits ${PODS}-Pod storms with no webhook, then with ${REPLICAS.join(', ')} replicas, and prints what each replica held`, async () => {
    const steps: Step[] = [];
    for (const replicas of REPLICAS) {
      await scaleTo(replicas);
      const step = await measure(replicas);
      assert.deepEqual(step.unchecked.failed.slice(0, 5), [], `no webhook, turn of ${replicas}: every Pod was admitted`);
      assert.equal(step.usage.length, replicas, 'one serve process per replica');
      // A Pod the webhook refused or could not be reached for was never reviewed by the other one.
      const admitted = PODS - step.result.failed.length;
      assert.ok(callCount(step.calls.get(VALIDATE)) >= admitted, 'the validating webhook reviewed every admitted Pod');
      assert.ok(callCount(step.calls.get(MUTATE)) >= admitted, 'and so did the mutating one');
      steps.push(step);
    }
    console.log(report(steps));
  });
});
