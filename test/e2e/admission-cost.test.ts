// What the webhook adds to creating a Pod, measured on the real API server: 2,000 Pods created one
// after another without the webhook registered, then 2,000 with it (validating and mutating).
// The figures are printed, not asserted (timings vary by machine); `npm run bench:admission` runs it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bulkClient } from './bulk.js';
import { startCluster, type Cluster } from './cluster.js';
import { applyWebhookConfigurations, installChart, renderChart, startWebhook, type RenderedChart, type Webhook } from './install.js';

const PODS = Number(process.env.PROBE_LINT_E2E_ADMISSION_PODS ?? 2000);

let cluster: Cluster;
let chart: RenderedChart;
let webhook: Webhook;
before(async () => {
  cluster = await startCluster();
  chart = renderChart();
  await installChart(cluster, {
    ...chart,
    yaml: chart.objects
      .filter((object) => !object.kind.endsWith('WebhookConfiguration'))
      .map((object) => JSON.stringify(object))
      .join('\n'),
  });
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
async function createPods(namespace: string): Promise<number[]> {
  await cluster.kubectl(['create', 'namespace', namespace]);
  for (let attempt = 0; attempt < 100 && (await cluster.api('GET', `/api/v1/namespaces/${namespace}/serviceaccounts/default`)).status !== 200; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
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

describe('admission cost', () => {
  it(`measures the latency the webhook adds to creating ${PODS} Pods`, async () => {
    const without = await createPods('without-webhook');
    await applyWebhookConfigurations(cluster, chart, chart);
    await cluster.kubectl(['create', 'namespace', 'with-webhook']);
    await cluster.kubectl(['label', 'namespace', 'with-webhook', 'probe-lint.dev/inject-startup-probe=true']);
    await new Promise((resolve) => setTimeout(resolve, 2000)); // the label reaches the webhook's cache
    const withWebhook = await createPods('with-webhook-pods');
    const row = (name: string, values: number[]) =>
      `${name.padEnd(22)} p50 ${percentile(values, 0.5).toFixed(2).padStart(7)} ms   p99 ${percentile(values, 0.99).toFixed(2).padStart(7)} ms`;
    console.log(`admission cost, ${PODS} Pods created one after another:`);
    console.log(`  ${row('without the webhook', without)}`);
    console.log(`  ${row('with the webhook', withWebhook)}`);
    console.log(
      `  added: p50 ${(percentile(withWebhook, 0.5) - percentile(without, 0.5)).toFixed(2)} ms, p99 ${(percentile(withWebhook, 0.99) - percentile(without, 0.99)).toFixed(2)} ms`,
    );
    assert.equal(without.length, PODS);
    assert.equal(withWebhook.length, PODS);
  });
});
