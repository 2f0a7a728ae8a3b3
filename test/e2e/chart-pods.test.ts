// The chart as a cluster runs it: probe-lint's own image, built from the Dockerfile with buildah
// (test/cluster/build-image.sh, run by scripts/e2e.sh before the suite leaves the network), imported
// into the real node, and `helm install` of charts/probe-lint. The scheduler places the webhook's
// Pods on the node, the kubelet starts them under the chart's security context and probes them, and
// the API server calls them through the chart's Service (at its endpoints: there is no kube-proxy).
// Nothing of the webhook runs outside the Pods.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers.js';
import { chartOnNode, chartPodsUnavailable, helmRelease, IMAGE, isReady, serveProcesses, statusField, webhookPods } from './chart-release.js';
import { createNamespace, type Cluster } from './cluster.js';
import { installReportCrds, NAMESPACE, RELEASE } from './install.js';
import { APP_IMAGE, nodeLeftovers, type Node } from './node.js';

const unavailable = chartPodsUnavailable();
// In CI the chart must run as Pods: a missing prerequisite is a failure there, not a skip.
if (unavailable !== undefined && process.env.CI !== undefined) throw new Error(`the chart-as-Pods suite cannot run: ${unavailable}`);

let cluster: Cluster;
let node: Node;

const until = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 120_000) => eventually(what, probe, timeoutMs, 200);

const mirrored = { livenessProbe: { httpGet: { path: '/healthz', port: 8080 } }, readinessProbe: { httpGet: { path: '/healthz', port: 8080 } } };
const MIRROR_WARNING =
  /^container "web": liveness runs readiness's httpGet check and acts no later \(30 vs 30 s\); raise its failureThreshold to 4 \[liveness-mirrors-readiness\]$/;

/** The texts of an HTTP Warning header (RFC 7234: `299 - "text"`, quotes escaped; several joined by commas). */
function warnings(header: unknown): string[] {
  const text = Array.isArray(header) ? header.join(', ') : typeof header === 'string' ? header : '';
  return [...text.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!.replace(/\\(.)/g, '$1'));
}
const warnedOfMirror = (header: unknown): boolean => warnings(header).some((text) => MIRROR_WARNING.test(text));

/** A Pod that is reviewed but never runs: a scheduling gate holds it (no image, no node needed). */
function heldPod(name: string, container: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { schedulingGates: [{ name: 'probe-lint.test/held' }], containers: [{ name: 'web', image: 'registry.example.com/web:1', ...container }] },
  };
}

before(async () => {
  if (unavailable !== undefined) return;
  // A review that is lost fails the request it belongs to, so the rollout below would show it.
  ({ cluster, node } = await chartOnNode(['webhook.failurePolicy=Fail']));
});

after(async () => {
  if (unavailable !== undefined) return;
  await node?.stop();
  const left = nodeLeftovers(cluster);
  await cluster?.stop();
  assert.deepEqual(left, [], 'the node left nothing behind');
});

describe('the chart running as Pods on a real node', { skip: unavailable ?? false }, () => {
  it("starts the webhook's Pods from probe-lint's image under the chart's security context, and they pass their own probes", async () => {
    const pods = await webhookPods(cluster);
    assert.equal(pods.length, 2, 'two replicas');
    for (const pod of pods) {
      assert.ok(isReady(pod), `${pod.metadata.name} is Ready`);
      const [container] = pod.status.containerStatuses;
      assert.equal(container.image, IMAGE);
      assert.equal(container.restartCount, 0, `${pod.metadata.name} was never restarted`);
      assert.match(pod.status.podIP, /^10\.244\.0\.\d+$/, 'an address of its own on the pod network');
    }
    const events = (await cluster.api('GET', `/api/v1/namespaces/${NAMESPACE}/events`)).json.items as any[];
    const failures = events.filter((event) => event.reason === 'Unhealthy' && /^(Liveness|Readiness) probe failed/.test(event.message));
    assert.deepEqual(
      failures.map((event) => event.message),
      [],
      'no liveness or readiness check failed',
    );

    // What runc applied, read from the processes themselves.
    const processes = serveProcesses();
    assert.equal(processes.length, 2, 'one probe-lint serve process per Pod');
    for (const { pid, status, root } of processes) {
      assert.match(statusField(status, 'Uid'), /^10001\s+10001\s+10001\s+10001$/, `${pid}: runs as user 10001`);
      assert.match(statusField(status, 'Gid'), /^10001\s+10001\s+10001\s+10001$/, `${pid}: and group 10001`);
      assert.equal(statusField(status, 'CapEff'), '0000000000000000', `${pid}: no capabilities`);
      assert.equal(statusField(status, 'CapBnd'), '0000000000000000', `${pid}: none to gain`);
      assert.equal(statusField(status, 'NoNewPrivs'), '1', `${pid}: no privilege escalation`);
      assert.equal(statusField(status, 'Seccomp'), '2', `${pid}: a seccomp filter (RuntimeDefault)`);
      assert.match(root.split(' ')[5] ?? '', /^ro\b/, `${pid}: a read-only root filesystem (${root})`);
    }
  });

  it('warns through the Pods, and reads namespace labels from the API server: enforce denies, injection patches', async () => {
    await createNamespace(cluster, 'warned');
    const warned = await cluster.api('POST', '/api/v1/namespaces/warned/pods', heldPod('mirror', mirrored));
    assert.equal(warned.status, 201, JSON.stringify(warned.json));
    assert.ok(warnedOfMirror(warned.headers.warning), `the webhook's warning: ${warnings(warned.headers.warning).join(' | ')}`);

    // The label reaches the Pods through their own watch on the API server (in-cluster credentials).
    await createNamespace(cluster, 'enforced', { 'probe-lint.dev/mode': 'enforce' });
    const undeclared = { livenessProbe: { httpGet: { path: '/livez', port: 'htpp' } }, readinessProbe: { httpGet: { path: '/readyz', port: 8080 } } };
    const refused = await until('the enforce label to be seen by the Pods', async () => {
      const reply = await cluster.api('POST', '/api/v1/namespaces/enforced/pods?dryRun=All', heldPod('typo', undeclared));
      return reply.status === 400 || reply.status === 403 ? reply : undefined;
    });
    assert.match(
      refused.json.message,
      /admission webhook "validate\.probe-lint\.dev" denied the request: .*livenessProbe\.httpGet\.port "htpp" is not declared/s,
    );

    await createNamespace(cluster, 'injected', { 'probe-lint.dev/inject-startup-probe': 'true' });
    // The test app answers its checks at /check/<probe> (test/cluster/images/app).
    const slowStart = { livenessProbe: { httpGet: { path: '/check/liveness', port: 8080 }, initialDelaySeconds: 60 } };
    const injected = await until('the injection label to be seen by the Pods', async () => {
      const reply = await cluster.api('POST', '/api/v1/namespaces/injected/pods?dryRun=All', heldPod('slow', slowStart));
      return reply.json.spec?.containers?.[0]?.startupProbe !== undefined ? reply : undefined;
    });
    assert.equal(injected.status, 201);
    assert.deepEqual(injected.json.spec.containers[0].startupProbe, {
      httpGet: { path: '/check/liveness', port: 8080, scheme: 'HTTP' },
      periodSeconds: 10,
      failureThreshold: 9,
      timeoutSeconds: 1,
      successThreshold: 1,
    });
    // A Pod that runs on the node, patched on its way in.
    const app = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'app' },
      spec: {
        automountServiceAccountToken: false,
        containers: [
          { name: 'app', image: APP_IMAGE, imagePullPolicy: 'Never', ports: [{ containerPort: 8080 }], env: [{ name: 'PORT', value: '8080' }], ...slowStart },
        ],
      },
    };
    const created = await cluster.api('POST', '/api/v1/namespaces/injected/pods', app);
    assert.equal(created.status, 201, JSON.stringify(created.json));
    assert.equal(created.json.metadata.annotations['probe-lint.dev/injected'], 'liveness-without-startup-probe:app');
    const running = await until('the patched Pod to start on the node', async () => {
      const pod = (await cluster.api('GET', '/api/v1/namespaces/injected/pods/app')).json;
      return pod.status?.containerStatuses?.[0]?.started === true ? pod : undefined;
    });
    assert.equal(running.spec.nodeName, node.name);
    assert.ok(running.spec.containers[0].startupProbe, 'the kubelet runs the injected startup probe');
  });

  it('loses no review while the webhook restarts under a steady stream of Pod creations', async () => {
    await createNamespace(cluster, 'stream');
    const results: { status: number; warned: boolean; at: number; message?: string }[] = [];
    let streaming = true;
    let next = 0;
    const stream = async () => {
      while (streaming) {
        const name = `pod-${next++}`;
        const reply = await cluster.api('POST', '/api/v1/namespaces/stream/pods', heldPod(name, mirrored));
        results.push({
          status: reply.status,
          warned: warnedOfMirror(reply.headers.warning),
          at: Date.now(),
          ...(reply.status === 201 ? {} : { message: reply.json.message }),
        });
      }
    };
    const streams = [stream(), stream(), stream(), stream()];
    await until('the stream to run', () => (results.length >= 20 ? true : undefined));

    const oldPods = (await webhookPods(cluster)).map((pod) => pod.metadata.name as string);
    const restartedAt = Date.now();
    const restarted = await cluster.kubectl(['rollout', 'restart', `deployment/${RELEASE}`, '-n', NAMESPACE]);
    assert.equal(restarted.code, 0, restarted.stderr);
    const status = await cluster.kubectl(['rollout', 'status', `deployment/${RELEASE}`, '-n', NAMESPACE, '--timeout', '4m']);
    assert.equal(status.code, 0, status.stderr);
    const newPods = await until('the old Pods to be gone', async () => {
      const pods = await webhookPods(cluster);
      return pods.some((pod) => oldPods.includes(pod.metadata.name)) ? undefined : pods;
    });
    const rolledAt = Date.now();
    await until('more reviews after the restart', () => (results.filter((result) => result.at > rolledAt).length >= 20 ? true : undefined));
    streaming = false;
    await Promise.all(streams);

    assert.equal(newPods.length, 2);
    assert.ok(newPods.every(isReady), 'both new Pods are Ready');
    const during = results.filter((result) => result.at >= restartedAt && result.at <= rolledAt);
    assert.ok(during.length >= 50, `the stream ran through the restart (${during.length} creations in ${((rolledAt - restartedAt) / 1000).toFixed(1)} s)`);
    const lost = results.filter((result) => result.status !== 201 || !result.warned);
    assert.deepEqual(lost, [], `every one of ${results.length} creations was reviewed and warned`);
    console.log(
      `rolling restart: ${during.length} Pod creations during its ${((rolledAt - restartedAt) / 1000).toFixed(1)} s, ${results.length} in all, none lost`,
    );
  });

  it("runs the chart's audit CronJob as a Job that writes every namespace's report into the cluster", async () => {
    await installReportCrds(cluster);
    const caBundle = async () =>
      (await cluster.api('GET', `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${RELEASE}`)).json.webhooks[0].clientConfig.caBundle;
    const before = await caBundle();
    helmRelease(cluster, 'upgrade', ['auditReports.enabled=true']);
    assert.equal(await caBundle(), before, 'helm upgrade keeps the CA the webhook serves under');

    const created = await cluster.kubectl(['create', 'job', 'audit-now', `--from=cronjob/${RELEASE}-audit`, '-n', NAMESPACE]);
    assert.equal(created.code, 0, created.stderr);
    const job = await until('the audit Job to finish', async () => {
      const status = (await cluster.api('GET', `/apis/batch/v1/namespaces/${NAMESPACE}/jobs/audit-now`)).json.status;
      return status?.succeeded === 1 || status?.failed > 0 ? status : undefined;
    });
    const pod = (await cluster.api('GET', `/api/v1/namespaces/${NAMESPACE}/pods?labelSelector=job-name%3Daudit-now`)).json.items[0];
    const log = node.containerLog(NAMESPACE, pod.metadata.name, 'audit');
    assert.equal(job.succeeded, 1, `the audit Job failed:\n${log}`);
    assert.equal(pod.spec.nodeName, node.name);
    assert.match(log, /wrote \d+ /, 'audit says what it wrote');

    const reports = JSON.parse((await cluster.kubectl(['get', 'policyreports.wgpolicyk8s.io', '-A', '-o', 'json'])).stdout).items as any[];
    const warned = reports.find(
      (report) => report.metadata.namespace === 'warned' && report.metadata.labels?.['app.kubernetes.io/managed-by'] === 'probe-lint',
    );
    assert.ok(warned, `a report for the namespace warned, among ${reports.map((report) => report.metadata.namespace).join(', ')}`);
    const mirror = warned.results.find((result: any) => result.policy === 'liveness-mirrors-readiness');
    assert.deepEqual(mirror?.resources, [{ apiVersion: 'v1', kind: 'Pod', name: 'mirror', namespace: 'warned' }]);
  });
});
