// What admission checks add to creating a Pod, measured on the real API server: Pods created one
// after another with nothing registered, with the admission policies (`probe-lint policies`:
// validating and mutating, CEL in the API server), and with the webhook (validating and mutating),
// in namespaces that opt into startup-probe injection. Both checks are registered at once, each
// scoped to its own namespace, and the three take turns in rounds. The figures are printed beside
// their goals (#25), not asserted (timings vary by machine); `npm run bench:admission` runs it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { RULES } from '../../rules/index.js';
import { generatePolicies } from '../../src/policies/generate.js';
import { bulkClient } from './bulk.js';
import { createNamespace, startCluster, type Cluster } from './cluster.js';
import { applyWebhookConfigurations, installChartWithoutWebhooks, renderChart, startWebhook, type RenderedChart, type Webhook } from './install.js';
import { percentile } from '../../bench/statistics.js';

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

/** Which check a namespace gets: both are registered at once, each scoped by this label, so the rounds can take turns. */
const CHECK_LABEL = 'probe-lint.dev/bench-check';
type Check = 'none' | 'policies' | 'webhook';
const CHECKS: readonly Check[] = ['none', 'policies', 'webhook'];
/** Rounds per check, taken in turn, so that a slow moment of the machine falls on all three alike. */
const ROUNDS = 5;

/** An object's namespace selector, narrowed to the namespaces labelled for `check`. */
function scopeTo(selector: { matchExpressions?: unknown[] } | undefined, check: Check): { matchExpressions: unknown[] } {
  return { matchExpressions: [...(selector?.matchExpressions ?? []), { key: CHECK_LABEL, operator: 'In', values: [check] }] };
}

/** Creates `count` Pods one after another on one connection; the latency of each create, in ms. */
async function createPods(namespace: string, first: number, count: number): Promise<number[]> {
  const client = bulkClient(cluster.server, cluster.admin, 1);
  const latencies: number[] = [];
  for (let index = first; index < first + count; index++) {
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
  return latencies;
}

const INJECT = { 'probe-lint.dev/inject-startup-probe': 'true' };
/** What the four policies #25 started from took to type-check here (this benchmark, the session they were merged into two). */
const FOUR_POLICIES_TYPE_CHECK_SECONDS = 76.5;

describe('admission cost', () => {
  it(`measures the latency the policies and the webhook add to creating ${PODS} Pods`, async () => {
    const policies = generatePolicies({}, RULES, { namespace: 'probe-lint', today: new Date().toISOString().slice(0, 10) }) as any[];
    for (const binding of policies.filter((object) => object.kind.endsWith('PolicyBinding'))) {
      binding.spec.matchResources.namespaceSelector = scopeTo(binding.spec.matchResources.namespaceSelector, 'policies');
    }
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

    const scoped = { ...chart, objects: structuredClone(chart.objects) };
    for (const configuration of scoped.objects.filter((object) => object.kind.endsWith('WebhookConfiguration'))) {
      for (const webhook of configuration.webhooks) webhook.namespaceSelector = scopeTo(webhook.namespaceSelector, 'webhook');
    }
    await applyWebhookConfigurations(cluster, scoped, chart);
    for (const check of CHECKS) await createNamespace(cluster, `with-${check}`, { ...INJECT, [CHECK_LABEL]: check });
    // The policies and the namespace labels reach the admission plugins and the webhook's cache.
    await new Promise((resolve) => setTimeout(resolve, 3000));

    const latencies: Record<Check, number[]> = { none: [], policies: [], webhook: [] };
    const perRound = Math.ceil(PODS / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      for (const check of CHECKS) latencies[check].push(...(await createPods(`with-${check}`, round * perRound, perRound)));
    }
    for (const check of ['policies', 'webhook'] as const) {
      const pod = (await cluster.api('GET', `/api/v1/namespaces/with-${check}/pods/pod-0`)).json;
      assert.ok(pod.spec.containers[0].startupProbe, `the ${check} injected a startup probe`);
    }
    assert.equal((await cluster.api('GET', '/api/v1/namespaces/with-none/pods/pod-0')).json.spec.containers[0].startupProbe, undefined);

    const sorted = Object.fromEntries(CHECKS.map((check) => [check, [...latencies[check]].sort((a, b) => a - b)])) as Record<Check, number[]>;
    const added = (check: Check, fraction: number) => percentile(sorted[check], fraction) - percentile(sorted.none, fraction);
    const line = (name: string, check: Check) =>
      `  ${name.padEnd(22)} p50 ${percentile(sorted[check], 0.5).toFixed(2).padStart(7)} ms   p99 ${percentile(sorted[check], 0.99).toFixed(2).padStart(7)} ms` +
      (check === 'none' ? '' : `   added p50 ${added(check, 0.5).toFixed(2)} ms, p99 ${added(check, 0.99).toFixed(2)} ms`);
    const goal = (what: string, value: string, target: string, met: boolean) =>
      `  ${what.padEnd(52)} ${value.padStart(9)}  goal ${target.padEnd(22)} ${met ? 'met' : 'NOT met'}`;
    console.log(`admission cost, ${perRound * ROUNDS} Pods per check, created one after another in ${ROUNDS} rounds taking turns:`);
    console.log(line('without checks', 'none'));
    console.log(line('with the policies', 'policies'));
    console.log(line('with the webhook', 'webhook'));
    for (const [label, fraction] of [
      ['p50', 0.5],
      ['p99', 0.99],
    ] as const) {
      const ratio = added('policies', fraction) / added('webhook', fraction);
      console.log(goal(`policies added ${label} ÷ the webhook's`, ratio.toFixed(2), '≤ 1.0', added('policies', fraction) <= added('webhook', fraction)));
    }
    console.log(
      goal(
        'type-check by kube-controller-manager after apply',
        `${typeCheckedSeconds.toFixed(1)} s`,
        `≤ ${(FOUR_POLICIES_TYPE_CHECK_SECONDS / 10).toFixed(2)} s (1/10 of ${FOUR_POLICIES_TYPE_CHECK_SECONDS} s)`,
        typeCheckedSeconds <= FOUR_POLICIES_TYPE_CHECK_SECONDS / 10,
      ),
    );
    // Where the time goes, as the API server measured it: each admission plugin's total over the run,
    // per Pod of the namespaces it acts in (it also runs, matching nothing, for the others).
    const metrics = String((await cluster.api('GET', '/metrics', undefined, { accept: 'text/plain' })).json);
    console.log("  the API server's own account, per Pod of the check's namespace:");
    for (const plugin of ['MutatingAdmissionPolicy', 'ValidatingAdmissionPolicy', 'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook']) {
      const seconds = [
        ...metrics.matchAll(new RegExp(`^apiserver_admission_controller_admission_duration_seconds_sum\\{[^}]*name="${plugin}"[^}]*\\} (\\S+)$`, 'gm')),
      ]
        .map((match) => Number(match[1]))
        .reduce((sum, value) => sum + value, 0);
      console.log(`    ${plugin.padEnd(28)} ${((seconds * 1000) / (perRound * ROUNDS)).toFixed(2)} ms`);
    }
    for (const check of CHECKS) assert.equal(latencies[check].length, perRound * ROUNDS);
  });
});
