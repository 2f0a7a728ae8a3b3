// `probe-lint simulate`: scenarios read strictly, the replica model against the one timing model
// (whose windows were measured on a real kubelet) and the measured back-off, the what-if that keeps
// the outage short, the JSON shape, and bounds on what a scenario may ask.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { XMLValidator } from 'fast-xml-parser';
import { parseScenario, ScenarioError } from '../src/model/fleet-scenario.js';
import { backOffSeconds, EARLY, LATE, runContainer, type SimulatedContainer } from '../src/model/fleet-run.js';
import type { EffectiveProbe } from '../src/model/effective-probe.js';
import { actWindow } from '../src/model/timing.js';
import { ROOT, runCli } from './helpers.js';
import { SIMULATION_EXAMPLE, SIMULATION_SCENARIO } from '../scripts/generate.js';

let work: string;
before(() => {
  work = mkdtempSync(join(tmpdir(), 'probe-lint-simulate-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

/** A probe as the model reads it: httpGet, the numbers given, the rest at their defaults. */
function probe(
  numbers: Partial<Pick<EffectiveProbe, 'periodSeconds' | 'timeoutSeconds' | 'failureThreshold' | 'successThreshold' | 'initialDelaySeconds'>> = {},
): EffectiveProbe {
  return {
    type: 'liveness',
    field: 'livenessProbe',
    pointer: '/spec/containers/0/livenessProbe',
    raw: { httpGet: { path: '/', port: 8080 } },
    timeoutSeconds: 1,
    periodSeconds: 10,
    successThreshold: 1,
    failureThreshold: 3,
    initialDelaySeconds: 0,
    handlerKinds: ['httpGet'],
    handlerKind: 'httpGet',
    numbersValid: true,
    ...numbers,
  };
}

const SPRING = `apiVersion: apps/v1
kind: Deployment
metadata: {name: orders, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: orders}}
  template:
    metadata: {labels: {app: orders}}
    spec:
      terminationGracePeriodSeconds: 5
      containers:
        - name: orders
          image: example/orders:1
          livenessProbe:
            httpGet: {path: /actuator/health, port: 8080}
            periodSeconds: 2
          readinessProbe:
            httpGet: {path: /actuator/health, port: 8080}
            periodSeconds: 2
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: worker, namespace: shop}
spec:
  replicas: 50
  selector: {matchLabels: {app: worker}}
  template:
    metadata: {labels: {app: worker}}
    spec:
      containers:
        - name: worker
          image: example/worker:1
          livenessProbe:
            exec: {command: [sh, -c, "set -e; pg_isready -h postgres.shop.svc -p 5432"]}
            periodSeconds: 5
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: static, namespace: shop}
spec:
  selector: {matchLabels: {app: static}}
  template:
    metadata: {labels: {app: static}}
    spec:
      containers:
        - name: nginx
          image: nginx:1
          livenessProbe: {httpGet: {path: /, port: 80}}
`;

function simulate(args: string[], manifest = SPRING) {
  const file = join(work, 'fleet.yaml');
  writeFileSync(file, manifest);
  return runCli(['simulate', file, ...args]);
}

describe('scenarios', () => {
  it('reads each kind, with its start and its failure', () => {
    assert.deepEqual(parseScenario('outage=postgres:60s:blackhole@30s,slow=redis:1.5s:2m,hang=self:500ms'.replace('500ms', '30s')), [
      { kind: 'outage', target: 'postgres', start: 30, duration: 60, failure: 'blackhole' },
      { kind: 'slow', target: 'redis', start: 0, latency: 1.5, duration: 120 },
      { kind: 'hang', target: 'self', start: 0, duration: 30 },
    ]);
  });

  it('refuses what is no scenario, in words that say how to write one', () => {
    for (const [spec, said] of [
      ['outage=db', /outage takes a target, a duration/],
      ['outage=db:60', /"60" is not a duration: write it as 60s/],
      ['outage=db:48h', /out of range: between 1 s and 24h/],
      ['outage=db:-5s', /is not a duration/],
      ['outage=self:60s', /the app itself is hang=self:30s/],
      ['hang=db:30s', /hang takes self and a duration/],
      ['crash=db:30s', /is no scenario: write outage=TARGET:60s/],
      ['outage=$(rm -rf ~):60s', /is not a host, a Service name or self/],
      [Array.from({ length: 9 }, () => 'hang=self:1s').join(','), /at most 8 parts/],
    ] as const)
      assert.throws(
        () => parseScenario(spec),
        (error: Error) => error instanceof ScenarioError && said.test(error.message),
        spec,
      );
  });

  it('is a usage error on the command line, and so is a target no probe checks', () => {
    const bad = simulate(['--scenario', 'outage=db:1000000s']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--scenario: the outage 1000000s is out of range/);
    const unreached = simulate(['--scenario', 'outage=mongo:60s'], SPRING.split('---')[1]);
    assert.equal(unreached.code, 2);
    assert.match(unreached.stderr, /no probe in the input checks mongo/);
    // A word of a host the probes name is not that host: postgres.shop.svc is no Service "shop".
    const part = simulate(['--scenario', 'outage=shop:60s'], SPRING.split('---')[1]);
    assert.equal(part.code, 2);
    assert.match(part.stderr, /no probe in the input checks shop/);
    assert.match(simulate([]).stderr, /simulate needs --scenario/);
  });
});

describe("the replica model against the kubelet's", () => {
  const onlyLiveness = (liveness: EffectiveProbe, mode: 'fails' | 'hangs', duration: number): SimulatedContainer => ({
    name: 'app',
    probes: { liveness },
    conditions: { liveness: [{ from: 0, to: duration, ...(mode === 'fails' ? { mode: 'fails' as const } : { mode: 'hangs' as const }) }] },
    restarted: true,
    gracePeriod: 0,
  });

  it("kills first where the timing model's window says, for any period, timeout and threshold (checks that fail at once and that hang)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 10 }),
        fc.constantFrom('fails', 'hangs'),
        (period, timeout, threshold, mode) => {
          const liveness = probe({ periodSeconds: period, timeoutSeconds: timeout, failureThreshold: threshold });
          const window = actWindow(liveness, mode === 'fails' ? 'fast' : 'hanging');
          const kill = (bound: 'early' | 'late') =>
            runContainer(onlyLiveness(liveness, mode, 10_000), { start: 0, end: 10_000 }, bound === 'early' ? EARLY : LATE).find(
              (event) => event.action === 'kill',
            )!.at;
          assert.equal(kill('early'), window.fromSeconds);
          assert.equal(kill('late'), window.toSeconds);
        },
      ),
      { numRuns: 200, seed: 20261207 },
    );
  });

  it('restarts as the node did after liveness kills: the first two at once, then after 10, 20, 40 s, capped at 300 s', () => {
    assert.deepEqual(
      Array.from({ length: 9 }, (_, restart) => backOffSeconds(restart)),
      [0, 0, 10, 20, 40, 80, 160, 300, 300],
    );
    const events = runContainer(onlyLiveness(probe({ periodSeconds: 2, failureThreshold: 3 }), 'fails', 200), { start: 0, end: 200 }, EARLY);
    const kills = events.filter((event) => event.action === 'kill').map((event) => event.at);
    const restarts = events.filter((event) => event.action === 'restart').map((event) => event.at);
    assert.deepEqual(
      restarts.slice(0, 5).map((at, index) => at - kills[index]!),
      [0, 0, 10, 20, 40],
    );
    // While the dependency is down each new container is killed f·p after it starts; after, it stays.
    assert.deepEqual(
      kills.slice(0, 5).map((at, index) => (index === 0 ? at : at - restarts[index - 1]!)),
      [4, 4, 4, 4, 4],
    );
    assert.equal(events.at(-1)!.action, 'ready', 'it ends Ready once the dependency is back');
  });

  it('stays bounded however long the scenario and short the period', () => {
    const events = runContainer(onlyLiveness(probe({ periodSeconds: 1, failureThreshold: 1 }), 'fails', 86_400), { start: 0, end: 86_400 }, LATE);
    assert.ok(events.length > 100 && events.length <= 5_000, `${events.length} events`);
  });
});

describe('probe-lint simulate', () => {
  it("finds the probes a dependency's outage reaches, predicts the fleet's outage, and the change that keeps it to the dependency's", () => {
    const run = simulate(['--scenario', 'outage=postgres:180s', '-f', 'json']);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as { workloads: any[]; untouched: number };
    assert.deepEqual(
      report.workloads.map((workload) => workload.resource.name),
      ['orders', 'worker'],
    );
    assert.equal(report.untouched, 1, 'the static site checks nothing the scenario reaches');
    const [orders, worker] = report.workloads;
    assert.match(orders.reached[0], /livenessProbe of orders: it requests Spring Boot's aggregate health, which checks every dependency/);
    assert.match(worker.reached[0], /livenessProbe of worker: it contacts postgres\.shop\.svc/);
    assert.ok(orders.kills.earliest > 2, 'every replica is killed again and again while the database is down');
    assert.ok(orders.amplification > 1, `the service is down longer than the database (${orders.amplification}×)`);
    assert.deepEqual(orders.whatIf.patch, [
      { op: 'replace', path: '/spec/template/spec/containers/0/livenessProbe/httpGet/path', value: '/actuator/health/liveness' },
    ]);
    assert.deepEqual(orders.whatIf.kills, { earliest: 0, latest: 0 });
    assert.ok(orders.whatIf.amplification <= 1.1, `with the fix the service is down about as long as the database (${orders.whatIf.amplification}×)`);
    // Replicas tick in step: each replica's events are the first's.
    assert.equal(orders.events.length, 3 * orders.events.filter((event: { replica: number }) => event.replica === 0).length);
    assert.equal(worker.replicasListed, 10, 'fifty replicas are listed as ten: the rest are the same');
    assert.equal(
      worker.serviceDown === null || worker.whatIf.serviceDown === null,
      true,
      'without liveness kills the worker is never down: its readiness checks nothing',
    );
  });

  it('says it in text, and fails the run past --fail-above', () => {
    const run = simulate(['--scenario', 'outage=postgres:180s', '--fail-above', '1']);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /^Scenario: postgres is down \(connections refused\) for 180 s from 0 s$/m);
    assert.match(run.stdout, /^Deployment\/shop\/orders \(.*fleet\.yaml:1\), 3 replicas$/m);
    assert.match(run.stdout, /what if livenessProbe of orders requests \/actuator\/health\/liveness, the framework's liveness endpoint: no kills/);
    assert.match(run.stdout, /^2 workloads reached by the scenario, 1 not\.$/m);
    assert.equal(simulate(['--scenario', 'outage=postgres:180s', '--fail-above', '50']).code, 0);
  });

  it('draws the fleet as SVG that parses, with each workload and its factor as text, and a hostile name as nothing but text', () => {
    const hostile = SPRING.replace('name: orders, namespace: shop', 'name: "<script>alert(1)</script>]]>&", namespace: shop');
    const run = simulate(['--scenario', 'outage=postgres:180s', '-f', 'svg'], hostile);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(XMLValidator.validate(run.stdout), true);
    assert.doesNotMatch(run.stdout, /<script/);
    assert.match(run.stdout, /<text class="title" x="16" y="\d+">Deployment\/shop\/&lt;script&gt;alert\(1\)&lt;\/script&gt;\]\]&gt;&amp;<\/text>/);
    assert.match(run.stdout, /<text x="\d+" y="\d+">\d+(\.\d)?×<\/text>/);
    assert.match(run.stdout, /<desc id="simulation-desc">postgres is down \(connections refused\) for 180 s from 0 s\. /);
  });

  it('is the picture docs/simulate.md shows (docs/simulate.svg, written by npm run generate)', () => {
    const run = runCli(['simulate', SIMULATION_EXAMPLE, '--scenario', SIMULATION_SCENARIO, '-f', 'svg']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(readFileSync(join(ROOT, 'docs/simulate.svg'), 'utf8'), run.stdout);
  });
});
