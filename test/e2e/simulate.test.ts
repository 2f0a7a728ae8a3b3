// `probe-lint simulate` against a real kubelet: a Deployment of three replicas on the pod network
// whose liveness and readiness request a framework's aggregate health, which checks a dependency (a
// server of the test's, reached through the bridge's gateway). The test takes the dependency away
// for a while and records what happened to each replica — when the kubelet killed it (the app's own
// SIGTERM line), restarted it (its start line) and when it was Ready again (the Pod's condition, as
// the API server showed it) — and every measured moment must lie in the window simulate predicted,
// from the same manifest, before anything happened.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fastJsonPatch from 'fast-json-patch';
import { runCliAsync } from '../helpers.js';
import { startCluster, type Cluster } from './cluster.js';
import { appDeployment, appPodSpec, nodeLeftovers, nodeUnavailable, startNode, type Node } from './node.js';

const unavailable = nodeUnavailable();
if (unavailable !== undefined && process.env.CI !== undefined) throw new Error(`the real-node suite cannot run: ${unavailable}`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const PORT = 18300;
/** The pod network's gateway: the bridge's address in the suite's network namespace, where the dependency listens. */
const POD_GATEWAY = '10.244.0.1';
const OUTAGE_SECONDS = 30;
const NAMESPACE = 'fleet';
/** How late a measured moment may be against its window: the SIGTERM reaches the app, a container starts, the API shows a condition. */
const LATE_BY = { kill: 1, restart: 2, ready: 2 };
/** How early: the app's and the test's clocks are one, but a moment is read to the millisecond and a window to the tenth of a second. */
const EARLY_BY = 0.3;

let cluster: Cluster;
let node: Node;
let work: string;
before(async () => {
  if (unavailable !== undefined) return;
  cluster = await startCluster();
  node = await startNode(cluster);
  work = mkdtempSync(join(tmpdir(), 'probe-lint-e2e-simulate-'));
});
after(async () => {
  if (unavailable !== undefined) return;
  await node?.stop();
  const left = nodeLeftovers(cluster);
  await cluster?.stop();
  rmSync(work, { recursive: true, force: true });
  assert.deepEqual(left, []);
});

/** A server that answers 200 until it is closed; closing it refuses every new connection. */
async function dependencyServer(port = 0): Promise<{ server: Server; port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((_request, response) => response.end('ok')).on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, '0.0.0.0', resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

interface Predicted {
  events: { replica: number; container: string; action: string; at: { earliest: number; latest: number }; maybe?: true }[];
  kills: { earliest: number; latest: number };
  serviceDown: { from: { earliest: number; latest: number }; to: { earliest: number; latest: number } | null };
}

/** The app's own log of one Pod: its starts and SIGTERMs, in seconds from `zero` (ms since the epoch). */
function appLog(pod: string, zero: number): { starts: number[]; sigterms: number[] } {
  const file = join(node.shared, `fleet-${pod}.jsonl`);
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  const events = lines.map((line) => JSON.parse(line) as { t: number; event: string });
  const at = (name: string) => events.filter((event) => event.event === name && event.t >= zero).map((event) => (event.t - zero) / 1000);
  return { starts: at('start'), sigterms: at('sigterm') };
}

function within(measured: number, window: { earliest: number; latest: number }, late: number, what: string): void {
  assert.ok(
    measured >= window.earliest - EARLY_BY && measured <= window.latest + late,
    `${what} at ${measured.toFixed(2)} s, outside the predicted ${window.earliest}-${window.latest} s`,
  );
}

interface Measured {
  name: string;
  starts: number[];
  sigterms: number[];
  ready: number[];
}

/**
 * Applies `manifest` in its namespace, waits for its three replicas to be Ready, takes the dependency
 * away for OUTAGE_SECONDS and brings it back on the same port; what each replica did, in seconds
 * from the moment it went away.
 */
async function throughOutage(
  manifest: any,
  dependency: Awaited<ReturnType<typeof dependencyServer>>,
  settleSeconds: number,
): Promise<{ measured: Measured[]; back: Awaited<ReturnType<typeof dependencyServer>> }> {
  const namespace = manifest.metadata.namespace as string;
  assert.equal((await cluster.kubectl(['create', 'namespace', namespace])).code, 0);
  const applied = await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify(manifest) });
  assert.equal(applied.code, 0, applied.stderr);
  const pods = async () => (await cluster.api('GET', `/api/v1/namespaces/${namespace}/pods`)).json.items as any[];
  const isReady = (pod: any) => pod.status?.conditions?.some((condition: any) => condition.type === 'Ready' && condition.status === 'True') === true;
  for (let waited = 0; (await pods()).filter(isReady).length < 3; waited += 500) {
    if (waited > 120_000) assert.fail(`the three replicas never were Ready: ${JSON.stringify((await pods()).map((pod) => pod.status))}`);
    await sleep(500);
  }
  await sleep(3_000); // checks pass with the dependency up
  const names = (await pods()).map((pod) => pod.metadata.name as string);

  // The dependency goes away; the test watches each Pod's Ready condition as the API server shows it.
  const zero = Date.now();
  await dependency.close();
  const readyAt = new Map<string, number[]>(names.map((name) => [name, []]));
  const wasReady = new Map<string, boolean>(names.map((name) => [name, true]));
  const watch = async (untilSeconds: number, stop?: () => boolean) => {
    while ((Date.now() - zero) / 1000 < untilSeconds && !(stop?.() ?? false)) {
      for (const pod of await pods()) {
        const ready = isReady(pod);
        if (ready && !wasReady.get(pod.metadata.name)) readyAt.get(pod.metadata.name)?.push((Date.now() - zero) / 1000);
        wasReady.set(pod.metadata.name, ready);
      }
      await sleep(200);
    }
  };
  await watch(OUTAGE_SECONDS);
  const back = await dependencyServer(dependency.port);
  await watch(settleSeconds, () => [...wasReady.values()].every(Boolean) && (Date.now() - zero) / 1000 > OUTAGE_SECONDS + 5);
  return { measured: names.map((name) => ({ name, ...appLog(name, zero), ready: readyAt.get(name)! })), back };
}

/** Every measured moment in its predicted window, and the table of both for the log. */
function assertPredicted(measured: readonly Measured[], predicted: Predicted, what: string): void {
  const ofReplica = predicted.events.filter((event) => event.replica === 0);
  const windows = (action: string) => ofReplica.filter((event) => event.action === action).map((event) => event.at);
  const seconds = (values: number[]) => values.map((at) => at.toFixed(1)).join(', ');
  const table = measured.map(({ name, sigterms, starts, ready }) => `${name}: kills ${seconds(sigterms)}; starts ${seconds(starts)}; Ready ${seconds(ready)}`);
  // What the node measured, beside the prediction (where docs/simulate.md's table comes from).
  console.log(
    `simulate on the node, ${what}: ${OUTAGE_SECONDS} s outage\n${table.join('\n')}\npredicted: ${JSON.stringify(ofReplica.map((event) => [event.action, event.at]))}`,
  );
  for (const { name, sigterms, starts, ready } of measured) {
    assert.ok(
      sigterms.length >= Math.min(predicted.kills.earliest, predicted.kills.latest) &&
        sigterms.length <= Math.max(predicted.kills.earliest, predicted.kills.latest),
      `${what}: ${name} was killed ${sigterms.length} times; predicted ${predicted.kills.earliest}-${predicted.kills.latest}\n${table.join('\n')}`,
    );
    sigterms.forEach((at, index) => within(at, windows('kill')[index]!, LATE_BY.kill, `${what}: ${name}'s kill ${index + 1}`));
    starts.forEach((at, index) => within(at, windows('restart')[index]!, LATE_BY.restart, `${what}: ${name}'s restart ${index + 1}`));
    assert.ok(ready.length > 0, `${what}: ${name} was never Ready again\n${table.join('\n')}`);
    within(ready.at(-1)!, predicted.serviceDown.to!, LATE_BY.ready, `${what}: ${name} Ready again`);
  }
}

async function simulated(manifest: unknown): Promise<Predicted & { whatIf: (Predicted & { patch: unknown[] }) | null }> {
  const file = join(work, 'fleet.json');
  writeFileSync(file, JSON.stringify(manifest, null, 2));
  const run = await runCliAsync(['simulate', file, '--scenario', `outage=postgres:${OUTAGE_SECONDS}s`, '-f', 'json']);
  assert.equal(run.code, 0, run.stderr);
  const [workload] = (JSON.parse(run.stdout) as { workloads: (Predicted & { whatIf: (Predicted & { patch: unknown[] }) | null })[] }).workloads;
  assert.ok(workload, run.stdout);
  return workload;
}

describe('simulate against a real kubelet', { skip: unavailable }, () => {
  it('predicts when each replica is killed, restarted and Ready again when the dependency its liveness checks goes away for 30 s, and that its fix stops the kills', async () => {
    const check = { httpGet: { path: '/actuator/health' }, periodSeconds: 2, failureThreshold: 3, timeoutSeconds: 1 };
    let dependency = await dependencyServer();
    const spec = appPodSpec(node, { port: PORT, log: 'unused', probes: { livenessProbe: check, readinessProbe: check } }) as any;
    // Each replica logs to a file of its own, named by the Pod (the kubelet expands $(POD_NAME) from the env before it).
    spec.containers[0].env = [
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'PORT', value: String(PORT) },
      { name: 'LOG', value: '/shared/fleet-$(POD_NAME).jsonl' },
      { name: 'DEPENDENCY', value: `http://${POD_GATEWAY}:${dependency.port}/` },
    ];
    const deployment = appDeployment('fleet', { ...spec, hostNetwork: false });
    const manifest = { ...deployment, metadata: { name: 'fleet', namespace: NAMESPACE }, spec: { ...deployment.spec, replicas: 3 } };
    // The prediction, from the manifest alone, before anything happens.
    const predicted = await simulated(manifest);
    assert.ok(predicted.kills.earliest > 0 && predicted.whatIf !== null, JSON.stringify(predicted));
    try {
      const original = await throughOutage(manifest, dependency, predicted.serviceDown.to!.latest + LATE_BY.ready + 5);
      dependency = original.back;
      assertPredicted(original.measured, predicted, 'as written');
    } finally {
      await cluster.kubectl(['delete', 'namespace', NAMESPACE, '--wait=false']);
    }
    // The what-if's patch, applied as --fix would: liveness on the framework's liveness endpoint. Simulated again, it kills nothing; nor does the node.
    const fixed = fastJsonPatch.applyPatch(
      structuredClone({ ...manifest, metadata: { ...manifest.metadata, namespace: `${NAMESPACE}-fixed` } }),
      predicted.whatIf.patch as any,
    ).newDocument;
    const prediction = await simulated(fixed);
    assert.deepEqual(prediction.kills, { earliest: 0, latest: 0 });
    assert.equal(prediction.whatIf, null);
    try {
      const after = await throughOutage(fixed, dependency, prediction.serviceDown.to!.latest + LATE_BY.ready + 5);
      dependency = after.back;
      assertPredicted(after.measured, prediction, 'fixed');
      for (const { name, sigterms } of after.measured) assert.deepEqual(sigterms, [], `${name} was not killed`);
    } finally {
      dependency.server.closeAllConnections();
      await dependency.close();
      await cluster.kubectl(['delete', 'namespace', `${NAMESPACE}-fixed`, '--wait=false']);
    }
  });
});
