// The timing model's windows against what a real kubelet did (../shared/reference/kubelet-measured.md,
// periodSeconds 2, failureThreshold 3), and `probe-lint timeline` over a manifest.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findPodSites } from '../src/model/pod-site.js';
import { resourcesOfDocument } from '../src/model/resource.js';
import { timelineOf } from '../src/model/timeline.js';
import { actWindow, readyWindow, windowText } from '../src/model/timing.js';
import { podYaml, runCli } from './helpers.js';

const measured = { periodSeconds: 2, failureThreshold: 3 };

describe('the timing model', () => {
  it('puts a fast failure within [(f−1)·p, f·p) of its onset: the kubelet killed 4.01 s after the first failing check, 5.93–6.01 s from onset at the worst phase', () => {
    const window = actWindow({ ...measured, timeoutSeconds: 1 }, 'fast');
    assert.deepEqual(window, { fromSeconds: 4, toSeconds: 6 });
    for (const seconds of [4.01, 5.93]) assert.ok(seconds >= window.fromSeconds && seconds < window.toSeconds + 0.1, `${seconds} s`);
  });

  it('puts a check hanging past the period (t = 4 > p = 2) within [f·t, f·t + p): killed 12.02 s after the first hanging check', () => {
    assert.deepEqual(actWindow({ ...measured, timeoutSeconds: 4 }, 'hanging'), { fromSeconds: 12, toSeconds: 14 });
  });

  it('puts a check hanging within the period (t ≤ p) within [(f−1)·p + t, f·p + t)', () => {
    assert.deepEqual(actWindow({ periodSeconds: 10, failureThreshold: 3, timeoutSeconds: 1 }, 'hanging'), { fromSeconds: 21, toSeconds: 31 });
  });

  it('gives an exec check up to 0.3 s more per check, for runc to start it: a 4 s exec hang was killed 14.08-14.68 s from onset', () => {
    const exec = { ...measured, timeoutSeconds: 4, handlerKind: 'exec' } as const;
    // Three back-to-back checks, each started up to 0.3 s late: 12 + 3 × 0.3 + p.
    assert.deepEqual(actWindow(exec, 'hanging'), { fromSeconds: 12, toSeconds: 14.9 });
    for (const seconds of [14.08, 14.68]) assert.ok(seconds < actWindow(exec, 'hanging').toSeconds, `${seconds} s`);
    // Within the period only the last check's start is late; a fast exec failure ends that much later too.
    assert.deepEqual(actWindow({ periodSeconds: 10, failureThreshold: 3, timeoutSeconds: 1, handlerKind: 'exec' }, 'hanging'), {
      fromSeconds: 21,
      toSeconds: 31.3,
    });
    assert.deepEqual(actWindow({ ...exec, timeoutSeconds: 1 }, 'fast'), { fromSeconds: 4, toSeconds: 6.3 });
    // A check that takes longer than the period once runc is counted runs back to back: t = p = 2 gives 3 × 2.3 + 2.
    assert.deepEqual(actWindow({ ...exec, timeoutSeconds: 2 }, 'hanging'), { fromSeconds: 6, toSeconds: 8.9 });
    // HTTP checks are not delayed.
    assert.deepEqual(actWindow({ ...exec, handlerKind: 'httpGet' }, 'hanging'), { fromSeconds: 12, toSeconds: 14 });
  });

  it('shifts a startup probe by its initialDelaySeconds (less up to a second: whole-second start times), and readiness comes back within [(s−1)·p, s·p) of recovery', () => {
    assert.deepEqual(actWindow({ periodSeconds: 2, failureThreshold: 15, timeoutSeconds: 1 }, 'fast', 5), { fromSeconds: 32, toSeconds: 35 });
    assert.deepEqual(actWindow({ periodSeconds: 2, failureThreshold: 15, timeoutSeconds: 1 }, 'fast', 0), { fromSeconds: 28, toSeconds: 30 });
    assert.deepEqual(readyWindow({ periodSeconds: 2, successThreshold: 2 }), { fromSeconds: 2, toSeconds: 4 });
    assert.equal(windowText({ fromSeconds: 20, toSeconds: 30 }), '20-30 s');
  });
});

describe("a container's windows", () => {
  const windowsOf = (container: Record<string, unknown>) => {
    const object = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x', ...container }] } };
    const [site] = resourcesOfDocument(object, {}).flatMap(findPodSites);
    return timelineOf(site!.containers[0]!).map(
      (window) => `${window.probe} ${window.action} ${window.case} from ${window.from} ${window.fromSeconds}-${window.toSeconds}`,
    );
  };
  const check = { tcpSocket: { port: 80 } };

  it('has a window per probe and case, startup counted from the container start, readiness ready from recovery', () => {
    assert.deepEqual(windowsOf({ startupProbe: { ...check, initialDelaySeconds: 5 }, livenessProbe: check, readinessProbe: check }), [
      'startupProbe startup-restart fails-fast from container-start 24-35',
      'startupProbe startup-restart hangs from container-start 25-36',
      'livenessProbe restart fails-fast from failure 20-30',
      'livenessProbe restart hangs from failure 21-31',
      'readinessProbe unready fails-fast from failure 20-30',
      'readinessProbe unready hangs from failure 21-31',
      'readinessProbe ready recovers from recovery 0-10',
    ]);
  });

  it('has none for a probe that is not there, or whose values the API server refuses', () => {
    assert.deepEqual(windowsOf({ readinessProbe: { ...check, successThreshold: 2 } }), [
      'readinessProbe unready fails-fast from failure 20-30',
      'readinessProbe unready hangs from failure 21-31',
      'readinessProbe ready recovers from recovery 10-20',
    ]);
    assert.deepEqual(windowsOf({ livenessProbe: { ...check, periodSeconds: -1 }, startupProbe: { ...check, failureThreshold: -3 } }), []);
    assert.deepEqual(windowsOf({}), []);
  });
});

describe('probe-lint timeline', () => {
  const manifest = podYaml(
    'livenessProbe:\n  httpGet: {path: /livez, port: 8080}\n  periodSeconds: 2\n  timeoutSeconds: 4\nreadinessProbe:\n  httpGet: {path: /ready, port: 8080}\n  periodSeconds: 2\n  successThreshold: 2\nstartupProbe:\n  httpGet: {path: /livez, port: 8080}\n  periodSeconds: 2\n  failureThreshold: 15\n  initialDelaySeconds: 5',
  );

  it('prints every window as JSON, counted from failure, recovery or the container start', () => {
    const run = runCli(['timeline', '-', '--format', 'json'], { input: manifest });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), {
      containers: [
        {
          file: '-',
          resource: 'Pod/p',
          container: 'c',
          windows: [
            { probe: 'startupProbe', action: 'startup-restart', case: 'fails-fast', fromSeconds: 32, toSeconds: 35 },
            { probe: 'startupProbe', action: 'startup-restart', case: 'hangs', fromSeconds: 33, toSeconds: 36 },
            { probe: 'livenessProbe', action: 'restart', case: 'fails-fast', fromSeconds: 4, toSeconds: 6 },
            { probe: 'livenessProbe', action: 'restart', case: 'hangs', fromSeconds: 12, toSeconds: 14 },
            { probe: 'readinessProbe', action: 'unready', case: 'fails-fast', fromSeconds: 4, toSeconds: 6 },
            { probe: 'readinessProbe', action: 'unready', case: 'hangs', fromSeconds: 5, toSeconds: 7 },
            { probe: 'readinessProbe', action: 'ready', case: 'recovers', fromSeconds: 2, toSeconds: 4 },
          ],
        },
      ],
    });
  });

  it('says it in words, names the startup gating, and refuses a container that is not there', () => {
    const text = runCli(['timeline', '-'], { input: manifest });
    assert.equal(text.code, 0);
    assert.match(text.stdout, /^ {2}livenessProbe {3}restarts the container when a check hangs until its timeout: 12-14 s after the app starts failing$/m);
    assert.match(text.stdout, /^ {2}readinessProbe {2}puts the pod back in its Services: 2-4 s after the app answers again$/m);
    assert.match(text.stdout, /liveness and readiness run only once the startupProbe has succeeded/);
    const missing = runCli(['timeline', '-', '--container', 'nope'], { input: manifest });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no container named "nope" in the input/);
  });
});
