// What admission checks add to creating a Pod, measured on the real API server: 2,000 Pods created
// one after another with nothing registered, then with the admission policies (`probe-lint
// policies`: validating and mutating, CEL in the API server), then with the webhook instead
// (validating and mutating), in namespaces that opt into startup-probe injection. The figures are
// printed, not asserted (timings vary by machine); `npm run bench:admission` runs it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { RULES } from '../../rules/index.js';
import { generatePolicies } from '../../src/policies/generate.js';
import { bulkClient } from './bulk.js';
import { createNamespace, startCluster, type Cluster } from './cluster.js';
import { applyWebhookConfigurations, installChartWithoutWebhooks, renderChart, startWebhook, type RenderedChart, type Webhook } from './install.js';

const PODS = Number(process.env.PROBE_LINT_E2E_ADMISSION_PODS ?? 2000);

let cluster: Cluster;
let chart: RenderedChart;
let webhook: Webhook;
before(async () => {
  cluster = await startCluster();
  chart = renderChart();
  await installChartWithoutWebhooks(cluster, chart);
  webhook = await startWebhook(cluster, chart);
});
after(async () => {
  webhook?.child.kill('SIGTERM');
  await webhook?.exited;
  await cluster?.stop();
});

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)]!;
}

/** Creates the Pods one after another on one connection; the latency of each create, in ms. */
async function createPods(namespace: string, labels: Record<string, string> = {}): Promise<number[]> {
  await createNamespace(cluster, namespace, labels);
  const client = bulkClient(cluster.server, cluster.admin, 1);
  const latencies: number[] = [];
  for (let index = 0; index < PODS; index++) {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `pod-${index}` },
      spec: {
        automountServiceAccountToken: false,
        containers: [
          {
            name: 'web',
            image: `registry.example.com/web:${index}`,
            livenessProbe: { httpGet: { path: '/livez', port: 8080 }, initialDelaySeconds: 45 },
            readinessProbe: { httpGet: { path: '/readyz', port: 8080 } },
          },
        ],
      },
    };
    const started = process.hrtime.bigint();
    const status = await client.post(`/api/v1/namespaces/${namespace}/pods`, pod);
    latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    assert.equal(status, 201);
  }
  client.close();
  return latencies.sort((a, b) => a - b);
}

const INJECT = { 'probe-lint.dev/inject-startup-probe': 'true' };

describe('admission cost', () => {
  it(`measures the latency the policies and the webhook add to creating ${PODS} Pods`, async () => {
    const without = await createPods('without-checks');

    const policies = generatePolicies({}, RULES, { namespace: 'probe-lint', today: new Date().toISOString().slice(0, 10) });
    const yaml = policies.map((object) => stringify(object)).join('---\n');
    const applyStarted = Date.now();
    const applied = await cluster.kubectl(['apply', '-f', '-'], { input: yaml });
    assert.equal(applied.code, 0, applied.stderr);
    // What the policies cost kube-controller-manager: the time until it has type-checked each one.
    for (;;) {
      const listed = (await cluster.api('GET', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies')).json.items as any[];
      if (
        listed.length > 0 &&
        listed.every((policy) => policy.status?.typeChecking !== undefined && policy.status.observedGeneration === policy.metadata.generation)
      ) {
        for (const policy of listed) assert.deepEqual(policy.status.typeChecking.expressionWarnings ?? [], [], policy.metadata.name);
        break;
      }
      assert.ok(Date.now() - applyStarted < 600_000, 'the policies were type-checked within 10 minutes');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const typeCheckedSeconds = (Date.now() - applyStarted) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 3000)); // the policies reach the admission plugins
    const withPolicies = await createPods('with-policies', INJECT);
    const injected = (await cluster.api('GET', '/api/v1/namespaces/with-policies/pods/pod-0')).json;
    assert.ok(injected.spec.containers[0].startupProbe, 'the policies injected a startup probe');
    assert.equal((await cluster.kubectl(['delete', '-f', '-'], { input: yaml.replace(/kind: ConfigMap[\s\S]*?---\n/, '') })).code, 0);

    await applyWebhookConfigurations(cluster, chart, chart);
    await cluster.api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'with-webhook', labels: INJECT } });
    await new Promise((resolve) => setTimeout(resolve, 2000)); // the namespace label reaches the webhook's cache
    const withWebhook = await createPods('with-webhook-pods', INJECT);
    const row = (name: string, values: number[]) =>
      `${name.padEnd(22)} p50 ${percentile(values, 0.5).toFixed(2).padStart(7)} ms   p99 ${percentile(values, 0.99).toFixed(2).padStart(7)} ms`;
    const added = (values: number[]) =>
      `p50 ${(percentile(values, 0.5) - percentile(without, 0.5)).toFixed(2)} ms, p99 ${(percentile(values, 0.99) - percentile(without, 0.99)).toFixed(2)} ms`;
    console.log(`admission cost, ${PODS} Pods created one after another:`);
    console.log(`  ${row('without checks', without)}`);
    console.log(`  ${row('with the policies', withPolicies)}   added ${added(withPolicies)}`);
    console.log(`  ${row('with the webhook', withWebhook)}   added ${added(withWebhook)}`);
    console.log(`  the validating policies type-checked by kube-controller-manager ${typeCheckedSeconds.toFixed(1)} s after they were applied`);
    assert.equal(withPolicies.length, PODS);
    assert.equal(withWebhook.length, PODS);
  });
});
