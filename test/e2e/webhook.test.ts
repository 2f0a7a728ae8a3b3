// The webhook as a real API server calls it: registered from what `helm template charts/probe-lint`
// renders, with the chart's CA, TLS certificate and ServiceAccount. kubectl is the test tools' own.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, wait } from '../helpers.js';
import { startCluster, type Cluster } from './cluster.js';
import { applyWebhookConfigurations, installChart, metric, NAMESPACE, renderChart, startWebhook, type RenderedChart, type Webhook } from './install.js';

let cluster: Cluster;
let chart: RenderedChart;
let webhook: Webhook;

const until = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>) => eventually(what, probe, 30_000);

async function namespace(name: string, labels: Record<string, string> = {}): Promise<void> {
  const created = await cluster.kubectl(['create', 'namespace', name]);
  assert.equal(created.code, 0, created.stderr);
  if (Object.keys(labels).length > 0) {
    const labelled = await cluster.kubectl(['label', 'namespace', name, '--overwrite', ...Object.entries(labels).map(([key, value]) => `${key}=${value}`)]);
    assert.equal(labelled.code, 0, labelled.stderr);
  }
}

function deployment(name: string, container: Record<string, unknown>, replicas = 1): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'registry.example.com/web:1', ...container }] } },
    },
  });
}

const mirrored = { livenessProbe: { httpGet: { path: '/healthz', port: 8080 } }, readinessProbe: { httpGet: { path: '/healthz', port: 8080 } } };
const undeclaredPort = { livenessProbe: { httpGet: { path: '/livez', port: 'htpp' } }, readinessProbe: { httpGet: { path: '/readyz', port: 8080 } } };

before(async () => {
  cluster = await startCluster();
  chart = renderChart();
  await installChart(cluster, chart);
  webhook = await startWebhook(cluster, chart);
});

after(async () => {
  webhook?.child.kill('SIGTERM');
  await webhook?.exited;
  await cluster?.stop();
});

describe('the chart', () => {
  it('renders only objects the API server accepts, with every optional feature that needs no missing CRD', async () => {
    const everything = renderChart([
      'networkPolicy.apiServerCIDRs[0]=10.0.0.0/8',
      'rbac.audit=true',
      'webhook.failurePolicy=Fail',
      'config.webhook.mutateTemplates=true',
      'replicaCount=3',
      'webhook.excludeNamespaces[0]=legacy',
    ]);
    for (const rendering of [chart, everything]) {
      const dryRun = await cluster.kubectl(['create', '--dry-run=server', '-f', '-'], {
        input: rendering.objects
          .filter((object) => object.kind !== 'Namespace')
          .map((object) => JSON.stringify(object))
          .join('\n'),
      });
      // Objects already installed exist; everything else must be accepted by the API server's own validation.
      const refusals = dryRun.stderr.split('\n').filter((line) => line.trim() !== '' && !/AlreadyExists|already exists/.test(line));
      assert.deepEqual(refusals, [], dryRun.stderr);
    }
  });

  it("registers webhooks the API server calls at the chart's Service, verifying the chart's own certificate", async () => {
    const before = await metric(webhook, 'probe_lint_admission_requests_total', { endpoint: 'validate' });
    await namespace('registration');
    const created = await cluster.kubectl(['-n', 'registration', 'create', '-f', '-'], {
      input: deployment('web', { livenessProbe: { httpGet: { path: '/livez', port: 8080 } }, readinessProbe: { httpGet: { path: '/readyz', port: 8080 } } }),
    });
    assert.equal(created.code, 0, created.stderr);
    assert.ok((await metric(webhook, 'probe_lint_admission_requests_total', { endpoint: 'validate' })) > before);

    // Under another CA (a second rendering makes its own) the API server refuses the certificate.
    const stranger = renderChart(['webhook.failurePolicy=Fail']);
    await applyWebhookConfigurations(cluster, stranger, stranger);
    try {
      const refused = await cluster.kubectl(['-n', 'registration', 'create', '-f', '-'], { input: deployment('stranger', {}) });
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /tls: failed to verify certificate: x509: certificate signed by unknown authority/);
    } finally {
      await applyWebhookConfigurations(cluster, chart, chart);
    }
  });
});

describe('warn mode', () => {
  it('returns warnings that kubectl prints, and stores the object unchanged', async () => {
    await namespace('warned');
    const applied = await cluster.kubectl(['-n', 'warned', 'apply', '-f', '-'], { input: deployment('mirror', mirrored) });
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(
      applied.stderr,
      /^Warning: container "web": liveness runs readiness's httpGet check and acts no later \(30 vs 30 s\); raise its failureThreshold to 4 \[liveness-mirrors-readiness\]$/m,
    );
    const stored = JSON.parse((await cluster.kubectl(['-n', 'warned', 'get', 'deployment', 'mirror', '-o', 'json'])).stdout);
    const probes = stored.spec.template.spec.containers[0];
    assert.deepEqual(probes.livenessProbe.httpGet, { path: '/healthz', port: 8080, scheme: 'HTTP' });
    assert.equal(probes.livenessProbe.failureThreshold, 3, 'the validating webhook changes nothing');
    assert.equal(probes.startupProbe, undefined);
  });
});

describe('enforce mode', () => {
  it("refuses an error the API server's own validation lets through, with the webhook's message", async () => {
    await namespace('enforced', { 'probe-lint.dev/mode': 'enforce' });
    // The namespace label reaches the webhook through its watch.
    await until('the enforce label to be seen', async () => {
      const dryRun = await cluster.kubectl(['-n', 'enforced', 'create', '--dry-run=server', '-f', '-'], { input: deployment('typo', undeclaredPort) });
      return dryRun.code !== 0 ? dryRun : undefined;
    });
    const refused = await cluster.kubectl(['-n', 'enforced', 'apply', '-f', '-'], { input: deployment('typo', undeclaredPort) });
    assert.notEqual(refused.code, 0);
    assert.match(
      refused.stderr,
      /admission webhook "validate\.probe-lint\.dev" denied the request: probe-lint found 1 problem that the cluster would reject or that can never work:\n- container "web": livenessProbe\.httpGet\.port "htpp" is not declared in the container's ports/,
    );
  });

  it('allows an UPDATE that leaves a pre-existing error untouched (scaling a legacy Deployment)', async () => {
    await namespace('legacy');
    assert.equal((await cluster.kubectl(['-n', 'legacy', 'apply', '-f', '-'], { input: deployment('old', undeclaredPort) })).code, 0, 'created in warn mode');
    await cluster.kubectl(['label', 'namespace', 'legacy', 'probe-lint.dev/mode=enforce']);
    await until('the enforce label to be seen', async () => {
      const dryRun = await cluster.kubectl(['-n', 'legacy', 'create', '--dry-run=server', '-f', '-'], { input: deployment('new', undeclaredPort) });
      return dryRun.code !== 0 ? true : undefined;
    });
    const scaled = await cluster.kubectl(['-n', 'legacy', 'scale', 'deployment', 'old', '--replicas', '3']);
    assert.equal(scaled.code, 0, scaled.stderr);
    const edited = await cluster.kubectl(['-n', 'legacy', 'set', 'image', 'deployment/old', 'web=registry.example.com/web:2']);
    assert.notEqual(edited.code, 0, 'changing the container that has the error is refused');
  });
});

describe('mutation', () => {
  it("injects a startup probe into a Pod and into the Pods a Deployment's ReplicaSet creates; re-applying causes no drift", async () => {
    await namespace('injected', { 'probe-lint.dev/inject-startup-probe': 'true' });
    const slowStart = {
      livenessProbe: { httpGet: { path: '/livez', port: 8080 }, initialDelaySeconds: 60 },
      readinessProbe: { httpGet: { path: '/readyz', port: 8080 } },
    };
    await until('the injection label to be seen', async () => {
      const dryRun = await cluster.kubectl([
        '-n',
        'injected',
        'run',
        'probe',
        '--image',
        'registry.example.com/web:1',
        '--dry-run=server',
        '-o',
        'json',
        '--overrides',
        JSON.stringify({ spec: { containers: [{ name: 'probe', image: 'registry.example.com/web:1', ...slowStart }] } }),
      ]);
      return dryRun.code === 0 && JSON.parse(dryRun.stdout).spec.containers[0].startupProbe !== undefined ? true : undefined;
    });
    const patchesBefore = await metric(webhook, 'probe_lint_patches_applied_total');

    const pod = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'direct' },
      spec: { containers: [{ name: 'web', image: 'registry.example.com/web:1', ...slowStart }] },
    });
    const created = await cluster.kubectl(['-n', 'injected', 'create', '-f', '-'], { input: pod });
    assert.equal(created.code, 0, created.stderr);
    const stored = JSON.parse((await cluster.kubectl(['-n', 'injected', 'get', 'pod', 'direct', '-o', 'json'])).stdout);
    assert.deepEqual(stored.spec.containers[0].startupProbe, {
      httpGet: { path: '/livez', port: 8080, scheme: 'HTTP' },
      periodSeconds: 10,
      failureThreshold: 9,
      timeoutSeconds: 1,
      successThreshold: 1,
    });
    assert.equal(stored.spec.containers[0].livenessProbe.initialDelaySeconds, undefined, 'the liveness delay is now 0');
    assert.equal(stored.metadata.annotations['probe-lint.dev/injected'], 'liveness-without-startup-probe:web');

    const applied = await cluster.kubectl(['-n', 'injected', 'apply', '-f', '-'], { input: deployment('rolled', slowStart, 2) });
    assert.equal(applied.code, 0, applied.stderr);
    const pods = await until('the ReplicaSet to create 2 Pods', async () => {
      const list = JSON.parse((await cluster.kubectl(['-n', 'injected', 'get', 'pods', '-l', 'app=rolled', '-o', 'json'])).stdout);
      return list.items.length === 2 ? list.items : undefined;
    });
    for (const each of pods) {
      assert.ok(each.spec.containers[0].startupProbe, `${each.metadata.name} has the startup probe`);
      assert.equal(each.metadata.annotations['probe-lint.dev/injected'], 'liveness-without-startup-probe:web');
    }
    assert.equal((await metric(webhook, 'probe_lint_patches_applied_total')) - patchesBefore, 3, 'one patch per Pod, each applied by the API server');

    const generation = JSON.parse((await cluster.kubectl(['-n', 'injected', 'get', 'deployment', 'rolled', '-o', 'json'])).stdout).metadata.generation;
    const reapplied = await cluster.kubectl(['-n', 'injected', 'apply', '-f', '-'], { input: deployment('rolled', slowStart, 2) });
    assert.match(reapplied.stdout, /unchanged/);
    assert.equal(
      JSON.parse((await cluster.kubectl(['-n', 'injected', 'get', 'deployment', 'rolled', '-o', 'json'])).stdout).metadata.generation,
      generation,
      'no drift',
    );
    assert.equal((await metric(webhook, 'probe_lint_patches_applied_total')) - patchesBefore, 3, 'no further patch');

    const dryRun = await cluster.kubectl(['-n', 'injected', 'create', '--dry-run=server', '-o', 'json', '-f', '-'], {
      input: pod.replace('"direct"', '"dry"'),
    });
    assert.equal(dryRun.code, 0, dryRun.stderr);
    assert.ok(JSON.parse(dryRun.stdout).spec.containers[0].startupProbe, 'a dry run shows the patch');
    assert.equal((await metric(webhook, 'probe_lint_patches_applied_total')) - patchesBefore, 3, 'dry runs are not counted as applied');
  });
});

describe('exclusions', () => {
  it("sends no review for kube-system, the release's namespace, or (only when labels are trusted) a namespace labelled off", async () => {
    // Each review is one log line naming its namespace and object: controllers elsewhere keep the
    // review counter moving, the log says exactly which objects were reviewed.
    const reviewed = (namespaceName: string, name: string) =>
      webhook
        .output()
        .split('\n')
        .some((line) => line.includes('"msg":"admission review"') && line.includes(`"namespace":"${namespaceName}"`) && line.includes(`"name":"${name}`));
    for (const excluded of ['kube-system', NAMESPACE]) {
      const created = await cluster.kubectl(['-n', excluded, 'create', '-f', '-'], { input: deployment(`excluded-${excluded}`, mirrored) });
      assert.equal(created.code, 0, created.stderr);
    }
    await wait(1500); // log lines are written within a second
    for (const excluded of ['kube-system', NAMESPACE])
      assert.equal(reviewed(excluded, `excluded-${excluded}`), false, `${excluded}: no review reached the webhook`);

    // By default a tenant's "off" label does not take a namespace out of the webhook's sight.
    await namespace('quiet', { 'probe-lint.dev/mode': 'off' });
    await cluster.kubectl(['-n', 'quiet', 'create', '-f', '-'], { input: deployment('seen', mirrored) });
    await until('the review of quiet/seen', () => (reviewed('quiet', 'seen') ? true : undefined));

    // With labels trusted, the chart excludes "off" namespaces from both webhook configurations.
    await applyWebhookConfigurations(cluster, renderChart(['config.webhook.namespaceLabels=trusted']), chart);
    await cluster.kubectl(['-n', 'quiet', 'create', '-f', '-'], { input: deployment('unseen', mirrored) });
    await wait(1500);
    assert.equal(reviewed('quiet', 'unseen'), false);
    await applyWebhookConfigurations(cluster, chart, chart);
  });
});

describe('faults', () => {
  async function createIn(name: string): Promise<{ code: number | null; stderr: string; seconds: number }> {
    const started = Date.now();
    const run = await cluster.kubectl(['-n', 'faults', 'create', '-f', '-'], { input: deployment(name, mirrored) });
    return { code: run.code, stderr: run.stderr, seconds: (Date.now() - started) / 1000 };
  }

  it('with the webhook stopped: Ignore admits, Fail refuses with a clear message; with it hung the API server gives up after timeoutSeconds', async () => {
    await namespace('faults');
    assert.equal((await createIn('healthy')).code, 0);

    webhook.child.kill('SIGSTOP');
    try {
      const ignored = await createIn('hung-ignore');
      assert.equal(ignored.code, 0, 'failurePolicy Ignore: admitted');
      assert.ok(ignored.seconds >= 5, `the API server waited the chart's timeoutSeconds (5 s) per webhook, took ${ignored.seconds} s`);
      await applyWebhookConfigurations(cluster, renderChart(['webhook.failurePolicy=Fail']), chart);
      const refused = await createIn('hung-fail');
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /failed calling webhook "(?:mutate|validate)\.probe-lint\.dev"/);
      assert.match(refused.stderr, /context deadline exceeded|Client\.Timeout|timeout/);
    } finally {
      webhook.child.kill('SIGCONT');
    }
    const resumed = await createIn('resumed');
    assert.equal(resumed.code, 0, `reviews resume: ${resumed.stderr}`);

    webhook.child.kill('SIGTERM');
    await webhook.exited;
    const down = await createIn('down-fail');
    assert.notEqual(down.code, 0);
    assert.match(
      down.stderr,
      /failed calling webhook "(?:mutate|validate)\.probe-lint\.dev": failed to call webhook: Post "https:\/\/probe-lint\.probe-lint\.svc:443\/(?:mutate|validate)\?timeout=5s": .*connection refused/,
    );
    await applyWebhookConfigurations(cluster, chart, chart);
    assert.equal((await createIn('down-ignore')).code, 0, 'failurePolicy Ignore: admitted while the webhook is down');

    webhook = await startWebhook(cluster, chart);
    const before = await metric(webhook, 'probe_lint_admission_requests_total');
    assert.equal((await createIn('back')).code, 0);
    assert.ok((await metric(webhook, 'probe_lint_admission_requests_total')) > before, 'reviews resume when it is back');
  });
});
