// The kubelet judges probe-lint's timing claims. Each Pod runs the test app (test/cluster/images/app)
// on a real node; the test switches the app's health at run time and measures, from the app's own
// log (a hostPath) and the Pod's status, when the kubelet acted. Each measurement must fall in the
// window `probe-lint timeline --format json` gives for the same manifest — the windows every
// message quotes (src/model/timing.ts). The scenarios run at once, on one node.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { eventually, runCliAsync } from '../helpers.js';
import { startCluster, type Cluster } from './cluster.js';
import { appPodSpec, nodeLeftovers, nodeUnavailable, setHealth, startNode, type Node } from './node.js';

// The kubelet acts on its own timers: a kill reaches the app a few ms after the decision, and the
// API shows a status change 12-43 ms after the kubelet made it (measured); polling adds its interval.
const EARLY = 0.15;
const LATE = 0.6;
const POLL_MS = 50;

interface AppEvent {
  t: number;
  event: 'start' | 'check' | 'health' | 'sigterm';
  probe?: string;
  health?: string;
  status?: number;
  end?: number;
}
interface Window {
  probe: string;
  action: string;
  case: string;
  fromSeconds: number;
  toSeconds: number;
}

const unavailable = nodeUnavailable();
// In CI the node must run: a missing prerequisite is a failure there, not a skip.
if (unavailable !== undefined && process.env.CI !== undefined) throw new Error(`the real-node suite cannot run: ${unavailable}`);

let cluster: Cluster;
let node: Node;
let nextPort = 18100;
const measured: { scenario: string; window: string; seconds: number }[] = [];

before(async () => {
  if (unavailable !== undefined) return;
  cluster = await startCluster();
  node = await startNode(cluster);
});
after(async () => {
  if (unavailable !== undefined) return;
  await node?.stop();
  const left = nodeLeftovers(cluster);
  await cluster?.stop();
  console.log(
    `measured on the node (s):\n${measured.map((entry) => `  ${entry.scenario.padEnd(44)} ${entry.seconds.toFixed(2).padStart(6)}  window ${entry.window}`).join('\n')}`,
  );
  assert.deepEqual(left, [], 'the node left nothing behind');
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Pod of the test app on the node, written where the CLI can read it; `probes` may need the app's port (an exec check's URL). */
function appPod(
  name: string,
  probes: Record<string, unknown> | ((port: number) => Record<string, unknown>),
  env: Record<string, string> = {},
): { file: string; port: number } {
  const port = nextPort++;
  const spec = appPodSpec(node, { port, log: name, probes: typeof probes === 'function' ? probes(port) : probes, env });
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec };
  const file = join(cluster.directory, `${name}.yaml`);
  writeFileSync(file, stringify(pod));
  return { file, port };
}

async function apply(file: string): Promise<void> {
  const applied = await cluster.kubectl(['apply', '-f', file]);
  assert.equal(applied.code, 0, applied.stderr);
}

/** The windows probe-lint promises for the (only) container in `file`. */
async function windowsOf(file: string): Promise<Window[]> {
  const run = await runCliAsync(['timeline', file, '--format', 'json']);
  assert.equal(run.code, 0, run.stderr);
  return (JSON.parse(run.stdout) as { containers: { windows: Window[] }[] }).containers[0]!.windows;
}

function windowFor(windows: Window[], probe: string, action: string, failure: string): Window {
  const window = windows.find((candidate) => candidate.probe === probe && candidate.action === action && candidate.case === failure);
  assert.ok(window, `timeline gives a ${probe} ${action} window when a check ${failure}`);
  return window;
}

function assertWithin(scenario: string, seconds: number, window: Window, late = LATE): void {
  measured.push({ scenario, seconds, window: `${window.fromSeconds}-${window.toSeconds}` });
  assert.ok(
    seconds >= window.fromSeconds - EARLY && seconds <= window.toSeconds + late,
    `${scenario}: the kubelet acted after ${seconds.toFixed(2)} s; probe-lint says ${window.fromSeconds}-${window.toSeconds} s`,
  );
}

function events(name: string): AppEvent[] {
  const file = join(node.shared, `${name}.jsonl`);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AppEvent);
}

const until = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 90_000) => eventually(what, probe, timeoutMs, POLL_MS);

const firstEvent = (name: string, match: (event: AppEvent) => boolean, after = 0) =>
  until(`${name}: an event`, () => events(name).find((event) => event.t >= after && match(event)));

async function podStatus(name: string): Promise<any> {
  return (await cluster.api('GET', `/api/v1/namespaces/default/pods/${name}`)).json.status ?? {};
}

const ready = (status: any): boolean => status.conditions?.find((condition: any) => condition.type === 'Ready')?.status === 'True';

/** The time (ms) the Pod's Ready condition was first seen at `wanted`. */
const readyAt = (name: string, wanted: boolean) =>
  until(`${name}: Ready ${wanted}`, async () => (ready(await podStatus(name)) === wanted ? Date.now() : undefined));

/**
 * A liveness restart, measured: applies the Pod, waits until its app has answered a check, lets
 * `beforeOnset` pick the phase, switches the app to `health`, and checks that the kill came within
 * the window timeline gives for that failure.
 */
async function measureLivenessRestart(
  scenario: string,
  name: string,
  probes: Parameters<typeof appPod>[1],
  health: 'fail' | 'hang',
  beforeOnset: (check: AppEvent) => Promise<void> = async () => {},
  late = LATE,
): Promise<{ onset: number; killed: AppEvent; window: Window }> {
  const { file, port } = appPod(name, probes);
  await apply(file);
  const window = windowFor(await windowsOf(file), 'livenessProbe', 'restart', health === 'fail' ? 'fails-fast' : 'hangs');
  await beforeOnset(await firstEvent(name, (event) => event.event === 'check' && event.status === 200));
  const onset = await setHealth(port, health);
  const killed = await firstEvent(name, (event) => event.event === 'sigterm');
  assertWithin(scenario, (killed.t - onset) / 1000, window, late);
  return { onset, killed, window };
}

const fastCheck = (probe: string) => ({ httpGet: { path: `/check/${probe}` }, periodSeconds: 2, failureThreshold: 3, timeoutSeconds: 1 });

describe('the kubelet acts within the windows probe-lint gives', { skip: unavailable, concurrency: true }, () => {
  it('liveness restarts a container whose check fails at once, and the restart reads Completed, exit 0', async () => {
    await measureLivenessRestart('liveness, check fails at once', 'liveness-fails', { livenessProbe: fastCheck('liveness') }, 'fail');
    // What runtime evidence has to work with: the kill reads as a clean exit.
    const status = await until('the restart in the status', async () => {
      const current = (await podStatus('liveness-fails')).containerStatuses?.[0];
      return current?.restartCount >= 1 ? current : undefined;
    });
    assert.equal(status.lastState.terminated.reason, 'Completed');
    assert.equal(status.lastState.terminated.exitCode, 0);
  });

  it('liveness acts early in its window when the app fails just before a check (the other phase)', async () => {
    const { onset, killed, window } = await measureLivenessRestart(
      'liveness, check fails at once (failing just before a check)',
      'liveness-fails-late',
      { livenessProbe: fastCheck('liveness') },
      'fail',
      // The next check is due one period after this one: fail 300 ms before it.
      (check) => sleep(Math.max(0, check.t + 2000 - 300 - Date.now())).then(() => undefined),
    );
    assert.ok((killed.t - onset) / 1000 < window.fromSeconds + 1, 'early in the window: the first failing check came at once');
  });

  it('liveness restarts a container whose check hangs within the period (timeout 1 s < period 2 s)', async () => {
    await measureLivenessRestart('liveness, check hangs (timeout 1 < period 2)', 'liveness-hangs-short', { livenessProbe: fastCheck('liveness') }, 'hang');
  });

  it('liveness restarts a container whose exec check hangs past the period', async () => {
    // The exec check is the app's own `app check URL`: it hangs as long as the app's answer does.
    const exec = (port: number) => ({
      livenessProbe: { exec: { command: ['/app', 'check', `http://127.0.0.1:${port}/check/exec`] }, periodSeconds: 2, failureThreshold: 3, timeoutSeconds: 4 },
    });
    await measureLivenessRestart('liveness, exec check hangs (timeout 4 > period 2)', 'exec-hangs', exec, 'hang');
  });

  it('a startupProbe with initialDelaySeconds gives up that much later, from the container start', async () => {
    const { file } = appPod('startup-delayed', { startupProbe: { ...fastCheck('startup'), initialDelaySeconds: 4 } }, { HEALTH: 'fail' });
    await apply(file);
    const window = windowFor(await windowsOf(file), 'startupProbe', 'startup-restart', 'fails-fast');
    assert.equal(window.fromSeconds, 7, 'initialDelaySeconds 4, counted from a start time in whole seconds, less up to 1 s, + (3 - 1) x 2 s');
    const started = await firstEvent('startup-delayed', (event) => event.event === 'start');
    const killed = await firstEvent('startup-delayed', (event) => event.event === 'sigterm');
    assertWithin('startupProbe, initialDelaySeconds 4, never starts', (killed.t - started.t) / 1000, window);
    const first = events('startup-delayed').find((event) => event.event === 'check')!;
    // The kubelet counts the delay from the container's start time in whole seconds, so it may end
    // up to a second early: the first check comes after 3 s, not at once as it would without it.
    assert.ok(first.t - started.t >= 3000 - EARLY * 1000, `no check before initialDelaySeconds less a second (the first came after ${first.t - started.t} ms)`);
  });

  it('liveness restarts a container whose check hangs past the period, its checks back to back and never overlapping', async () => {
    const { onset, killed } = await measureLivenessRestart(
      'liveness, check hangs (timeout 4 > period 2)',
      'liveness-hangs',
      { livenessProbe: { ...fastCheck('liveness'), timeoutSeconds: 4 } },
      'hang',
    );
    const hanging = events('liveness-hangs').filter((event) => event.event === 'check' && event.t >= onset && event.t < killed.t);
    assert.equal(hanging.length, 3, 'one request per check, failureThreshold of them, no retry');
    for (let index = 1; index < hanging.length; index++) {
      assert.ok(hanging[index]!.t >= hanging[index - 1]!.end! - 5, 'a check starts only after the one before it ended');
      assert.ok(hanging[index]!.t - hanging[index - 1]!.end! < 500, 'and at once: the tick that fell during a hanging check was kept');
    }
  });

  it('readiness takes the Pod out of its Services when checks fail, and back in after successThreshold successes', async () => {
    const { file, port } = appPod('readiness', { readinessProbe: { ...fastCheck('readiness'), successThreshold: 2 } });
    await apply(file);
    const windows = await windowsOf(file);
    await readyAt('readiness', true);
    const onset = await setHealth(port, 'fail');
    assertWithin(
      'readiness, check fails at once: unready',
      ((await readyAt('readiness', false)) - onset) / 1000,
      windowFor(windows, 'readinessProbe', 'unready', 'fails-fast'),
    );
    const recovered = await setHealth(port, 'ok');
    assertWithin(
      'readiness, successThreshold 2: ready again',
      ((await readyAt('readiness', true)) - recovered) / 1000,
      windowFor(windows, 'readinessProbe', 'ready', 'recovers'),
    );
    assert.equal((await podStatus('readiness')).containerStatuses[0].restartCount, 0, 'readiness never restarts');
  });

  it('liveness that mirrors readiness restarts the container within a period of its leaving the Service, in either order', async () => {
    const { file, port } = appPod('mirror', { livenessProbe: fastCheck('health'), readinessProbe: fastCheck('health') });
    await apply(file);
    const windows = await windowsOf(file);
    await readyAt('mirror', true);
    const unreadyWindow = windowFor(windows, 'readinessProbe', 'unready', 'fails-fast');
    const onset = await setHealth(port, 'fail');
    // When liveness acts first, the restarted container answers readiness at once, and the kubelet
    // may never report Ready=False at all: the Pod left its Services with the killed container.
    const [unready, killed] = await Promise.all([
      until('mirror: Ready false', async () => (ready(await podStatus('mirror')) ? undefined : Date.now()), (unreadyWindow.toSeconds + LATE + 2) * 1000).catch(
        () => undefined,
      ),
      firstEvent('mirror', (event) => event.event === 'sigterm'),
    ]);
    assertWithin('mirrored probes: restart', (killed.t - onset) / 1000, windowFor(windows, 'livenessProbe', 'restart', 'fails-fast'));
    if (unready !== undefined && unready < killed.t) {
      assertWithin('mirrored probes: unready (readiness first)', (unready - onset) / 1000, unreadyWindow);
      assert.ok(killed.t - unready < 2000 + LATE * 1000, `the restart came ${killed.t - unready} ms after the Pod left its Services: within one period`);
    } else {
      // Liveness first: the Pod leaves its Services with the killed container, whatever Ready reads.
      measured.push({ scenario: 'mirrored probes: unready (with the restart)', seconds: ((unready ?? killed.t) - onset) / 1000, window: 'restart' });
    }
  });

  it('a startupProbe gives up on a container that never starts within its window, from the container start', async () => {
    const { file } = appPod(
      'startup-fails',
      { startupProbe: { ...fastCheck('startup'), failureThreshold: 8 }, livenessProbe: fastCheck('liveness') },
      { HEALTH: 'fail' },
    );
    await apply(file);
    const window = windowFor(await windowsOf(file), 'startupProbe', 'startup-restart', 'fails-fast');
    const started = await firstEvent('startup-fails', (event) => event.event === 'start');
    const killed = await firstEvent('startup-fails', (event) => event.event === 'sigterm');
    assertWithin('startupProbe, never starts', (killed.t - started.t) / 1000, window);
    const checks = events('startup-fails').filter((event) => event.event === 'check' && event.t < killed.t);
    assert.ok(
      checks.every((event) => event.probe === 'startup'),
      'liveness does not run before the startupProbe succeeds',
    );
  });

  it("the startupProbe probe-lint's fix injects keeps a slow starter alive, and it is ready without a restart", async () => {
    // A liveness delay of 10 s (flagged at 10 with this config) and an app that fails its checks for its first 10 s.
    const { file } = appPod(
      'slow-starter',
      { livenessProbe: { ...fastCheck('liveness'), initialDelaySeconds: 10 }, readinessProbe: fastCheck('readiness') },
      { FAIL_FOR_MS: '10000' },
    );
    const config = join(cluster.directory, 'slow-starter.probe-lint.yaml');
    writeFileSync(config, 'rules:\n  liveness-without-startup-probe:\n    options: {minInitialDelaySeconds: 10}\n');
    const fixed = await runCliAsync([file, '--config', config, '--fix', '--fix-type', 'suggestion', '--fail-on', 'never']);
    assert.equal(fixed.code, 0, fixed.stderr);
    const manifest = readFileSync(file, 'utf8');
    assert.match(manifest, /startupProbe:/, 'the fix added a startupProbe');
    await apply(file);
    const window = windowFor(await windowsOf(file), 'startupProbe', 'startup-restart', 'fails-fast');
    const started = await firstEvent('slow-starter', (event) => event.event === 'start');
    await readyAt('slow-starter', true);
    // Past the startup probe's last moment to give up: still the first container.
    await sleep(Math.max(0, started.t + (window.toSeconds + LATE) * 1000 - Date.now()));
    assert.equal((await podStatus('slow-starter')).containerStatuses[0].restartCount, 0);
    assert.equal(events('slow-starter').filter((event) => event.event === 'sigterm').length, 0);
  });
});
