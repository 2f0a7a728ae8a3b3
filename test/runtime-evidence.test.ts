// probe-lint audit's runtime evidence against a local API server speaking the list wire format: Events
// and Pod statuses attributed to the workloads that own the Pods (a Deployment through its
// ReplicaSet, a CronJob through its Job, a Pod that is gone by its name), counted by their series
// and deprecated counts within the window, and reported first with their likely causes. The real
// kubelet's Events are read the same way in test/e2e/runtime-evidence.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RULES } from '../rules/index.js';
import { addEvent, Owners, parseWindow } from '../src/cluster/runtime-evidence.js';
import type { Finding } from '../src/engine/finding.js';
import { linkRuntimeFindings, runtimeFirst } from '../src/engine/runtime-causes.js';
import { emptyEvidence, EvidenceMap, evidenceKey, findingEvidence } from '../src/engine/runtime-evidence.js';
import { container, deployment } from './admission.js';
import { FakeApiServer, nodes } from './fake-apiserver.js';
import { lintText, runCliAsync } from './helpers.js';
import { assertRuntimeArticle, auditWithHtml } from './html-article.js';
import { chromiumBinary } from './browser.js';
import { launchBrowser, openPage } from './browser-page.js';
import { makeTestPki } from './tls.js';

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const owned = (kind: string, name: string) => [{ apiVersion: 'v1', kind, name, uid: 'u', controller: true }];
const regarding = (pod: string, name = 'web') => ({ kind: 'Pod', namespace: 'shop', name: pod, fieldPath: `spec.containers{${name}}` });

// liveness runs readiness's check: the static finding the runtime one names as its likely cause.
const mirrored = () =>
  container(
    'web',
    { livenessProbe: { httpGet: { path: '/health', port: 80 } }, readinessProbe: { httpGet: { path: '/health', port: 80 } } },
    { ports: [{ containerPort: 80 }] },
  );

describe('audit with runtime evidence', () => {
  let api: FakeApiServer;
  let kubeconfig: string;
  before(async () => {
    api = new FakeApiServer(makeTestPki());
    await api.start();
    api.set('/api/v1/nodes', nodes(1));
    api.set('/api/v1/services', []);
    api.set('/apis/apps/v1/deployments', [deployment([mirrored()], { namespace: 'shop', name: 'web' })]);
    api.set('/apis/apps/v1/statefulsets', [
      {
        metadata: { name: 'db', namespace: 'shop' },
        spec: { template: { spec: { containers: [container('db', { livenessProbe: { tcpSocket: { port: 5432 } } })] } } },
      },
    ]);
    api.set('/apis/apps/v1/daemonsets', []);
    api.set('/apis/batch/v1/cronjobs', [
      {
        metadata: { name: 'nightly', namespace: 'shop' },
        spec: {
          jobTemplate: {
            spec: { template: { spec: { restartPolicy: 'Never', containers: [container('job', { livenessProbe: { exec: { command: ['true'] } } })] } } },
          },
        },
      },
    ]);
    api.set('/apis/batch/v1/jobs', [{ metadata: { name: 'nightly-123', namespace: 'shop', ownerReferences: owned('CronJob', 'nightly') }, spec: {} }]);
    const status = (name: string, restartCount: number) => ({ phase: 'Running', containerStatuses: [{ name, restartCount }] });
    api.set('/api/v1/pods', [
      {
        metadata: { name: 'web-7d9f8-aaaaa', namespace: 'shop', labels: { 'pod-template-hash': '7d9f8' }, ownerReferences: owned('ReplicaSet', 'web-7d9f8') },
        spec: {},
        status: status('web', 4),
      },
      {
        metadata: { name: 'web-7d9f8-bbbbb', namespace: 'shop', labels: { 'pod-template-hash': '7d9f8' }, ownerReferences: owned('ReplicaSet', 'web-7d9f8') },
        spec: {},
        status: status('web', 1),
      },
      { metadata: { name: 'db-0', namespace: 'shop', ownerReferences: owned('StatefulSet', 'db') }, spec: {}, status: status('db', 0) },
      { metadata: { name: 'nightly-123-xyz', namespace: 'shop', ownerReferences: owned('Job', 'nightly-123') }, spec: {}, status: status('job', 0) },
    ]);
    api.set('/apis/events.k8s.io/v1/events', [
      // Core events as the kubelet writes them, read through events.k8s.io: deprecatedCount.
      {
        reason: 'Killing',
        note: 'Container web failed liveness probe, will be restarted',
        regarding: regarding('web-7d9f8-aaaaa'),
        deprecatedCount: 3,
        deprecatedLastTimestamp: minutesAgo(5),
      },
      {
        reason: 'Unhealthy',
        note: 'Liveness probe failed: Get "http://10.0.0.1/health": context deadline exceeded',
        regarding: regarding('web-7d9f8-aaaaa'),
        deprecatedCount: 9,
        deprecatedLastTimestamp: minutesAgo(5),
      },
      // A series, and the combined form the kubelet's correlator writes after ten different messages.
      {
        reason: 'Unhealthy',
        note: '(combined from similar events): Readiness probe failed: HTTP probe failed with statuscode: 503',
        regarding: regarding('web-7d9f8-bbbbb'),
        series: { count: 12, lastObservedTime: minutesAgo(2) },
      },
      // A Pod that is gone: its Deployment is found from its name.
      {
        reason: 'Killing',
        note: 'Container web failed liveness probe, will be restarted',
        regarding: regarding('web-7d9f8-ccccc'),
        deprecatedCount: 1,
        deprecatedLastTimestamp: minutesAgo(20),
      },
      // Not counted: older than the window, a deletion, another kind, an object nobody audits.
      {
        reason: 'Killing',
        note: 'Container web failed liveness probe, will be restarted',
        regarding: regarding('web-7d9f8-aaaaa'),
        deprecatedCount: 50,
        deprecatedLastTimestamp: minutesAgo(180),
      },
      { reason: 'Killing', note: 'Stopping container web', regarding: regarding('web-7d9f8-aaaaa'), deprecatedLastTimestamp: minutesAgo(1) },
      { reason: 'Unhealthy', note: 'Liveness probe failed', regarding: { kind: 'Node', name: 'node-0' }, deprecatedLastTimestamp: minutesAgo(1) },
      {
        reason: 'Killing',
        note: 'Container x failed liveness probe, will be restarted',
        regarding: regarding('other-1', 'x'),
        deprecatedCount: 7,
        deprecatedLastTimestamp: minutesAgo(1),
      },
      // A startup probe that gives up, on a CronJob's Pod through its Job; and a StatefulSet's back-off.
      {
        reason: 'Killing',
        note: 'Container job failed startup probe, will be restarted',
        regarding: regarding('nightly-123-xyz', 'job'),
        eventTime: minutesAgo(1),
      },
      {
        reason: 'BackOff',
        note: 'Back-off restarting failed container db',
        regarding: regarding('db-0', 'db'),
        deprecatedCount: 2,
        deprecatedLastTimestamp: minutesAgo(1),
      },
    ]);
    kubeconfig = api.kubeconfig(mkdtempSync(join(tmpdir(), 'probe-lint-evidence-')));
  });
  after(() => api.stop());

  const audit = async (...extra: string[]) => {
    const run = await runCliAsync(['audit', '-A', '--kubeconfig', kubeconfig, '--format', 'json', '--fail-on', 'never', ...extra]);
    assert.equal(run.code, 0, run.stderr);
    return { findings: JSON.parse(run.stdout).findings as any[], stderr: run.stderr };
  };

  it('gives the HTML report of an audit each runtime finding by its fingerprint, with what the cluster showed and its likely causes', async () => {
    const { stdout, html } = await auditWithHtml(kubeconfig, '1h');
    const web = (JSON.parse(stdout).findings as any[]).find((finding) => finding.rule === 'runtime-liveness-restarts' && finding.resource.name === 'web');
    assertRuntimeArticle(html, web);
    // The summary says what was read: the cluster, every namespace, the evidence and its window.
    assert.match(html, /<dt>Cluster<\/dt><dd>https:\/\/127\.0\.0\.1:\d+<\/dd><dt>Namespaces<\/dt><dd>all namespaces<\/dd>/);
    assert.match(html, /<dt>Runtime evidence<\/dt><dd>Events and Pod statuses of the last 1h<\/dd>/);
    assert.match(html, /<section class="workload" id="w-[0-9a-f]+" data-worst="[a-z]+" data-name="Deployment\/shop\/web">/);
    // And as a browser shows it: no console error, CSP violation or request, the evidence one click away.
    if (chromiumBinary() === undefined) return;
    const directory = mkdtempSync(join(tmpdir(), 'probe-lint-audit-page-'));
    const browser = await launchBrowser();
    try {
      const file = join(directory, 'audit.html');
      writeFileSync(file, html);
      const { page, errors, violations, requests } = await openPage(browser, file);
      const shown = await page.$eval(`[id="${web.fingerprint}"] details.evidence`, (details) => {
        details.open = true;
        return details.querySelector('pre')!.checkVisibility();
      });
      assert.equal(shown, true);
      assert.deepEqual([errors, violations, requests], [[], [], [`file://${file}`]]);
    } finally {
      await browser.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("sums a Deployment's Pods into one finding, first, with the Events' counts and the static finding as the likely cause", async () => {
    const { findings } = await audit('--since', '1h');
    const web = findings.filter((finding) => finding.rule === 'runtime-liveness-restarts');
    assert.equal(web.length, 1);
    assert.equal(findings[0], web[0], 'runtime findings come first');
    assert.deepEqual([web[0].resource.kind, web[0].resource.name, web[0].container], ['Deployment', 'web', 'web']);
    assert.deepEqual(web[0].evidence, {
      pods: 3, // two with statuses, one named only by an event
      restartCount: 5,
      livenessKills: 4,
      startupKills: 0,
      unhealthy: { livenessProbe: 9, readinessProbe: 12, startupProbe: 0 },
      backOff: 0,
    });
    assert.deepEqual(web[0].causes, [{ rule: 'liveness-mirrors-readiness', messageId: 'mirrors' }]);
    assert.match(
      web[0].message,
      /killed container web 4 times in the last 1h .*context deadline exceeded.*The likely cause, found on this container's spec: liveness-mirrors-readiness/,
    );
  });

  it('attributes a startup kill to the CronJob through its Job', async () => {
    const { findings } = await audit();
    const startup = findings.filter((finding) => finding.rule === 'runtime-startup-restarts');
    assert.deepEqual(
      startup.map((finding) => `${finding.resource.kind}/${finding.resource.name} ${finding.container} ${finding.evidence.startupKills}`),
      ['CronJob/nightly job 1'],
    );
  });

  it('counts only what happened within --since', async () => {
    const narrow = (await audit('--since', '10m')).findings.find((finding) => finding.rule === 'runtime-liveness-restarts');
    assert.equal(narrow.evidence.livenessKills, 3, 'the kill 20 minutes ago is outside the window');
    const wide = (await audit('--since', '4h')).findings.find((finding) => finding.rule === 'runtime-liveness-restarts');
    assert.equal(wide.evidence.livenessKills, 54);
  });

  it('audits the specs only with --no-evidence, and reads no Events', async () => {
    const before = api.requests.length;
    const { findings } = await audit('--no-evidence');
    assert.ok(findings.length > 0);
    assert.deepEqual(
      findings.filter((finding) => finding.rule.startsWith('runtime-')),
      [],
    );
    assert.ok(!api.requests.slice(before).some((request) => request.includes('events')));
  });

  it('says so and audits the specs when the Events cannot be read', async () => {
    const events = api.collections.get('/apis/events.k8s.io/v1/events')!;
    api.collections.delete('/apis/events.k8s.io/v1/events');
    try {
      const { findings, stderr } = await audit();
      assert.match(stderr, /warning: cannot read runtime evidence \(Events\): .*404.*; auditing the specs only/);
      assert.ok(findings.some((finding) => finding.rule === 'liveness-mirrors-readiness'));
    } finally {
      api.set('/apis/events.k8s.io/v1/events', events);
    }
  });

  it('refuses a --since that is not a duration, naming it', async () => {
    const run = await runCliAsync(['audit', '--kubeconfig', kubeconfig, '--since', 'yesterday']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--since takes a duration such as 30m, 1h, 2h30m or 7d, up to a year \(got "yesterday"\)/);
  });
});

describe('the evidence window', () => {
  it('reads s, m, h and d, combined, and nothing else', () => {
    assert.equal(parseWindow('30s'), 30_000);
    assert.equal(parseWindow('2h30m'), 9_000_000);
    assert.equal(parseWindow('7d'), 7 * 86_400_000);
    for (const bad of ['', '0m', '1h2d', '1.5h', '-1h', '400d', 'h']) assert.equal(parseWindow(bad), undefined, bad);
  });
});

describe('the likely causes of a runtime finding', () => {
  // Two containers, both with a kill on record; only `web` mirrors readiness in its liveness.
  const text = [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata: {name: api, namespace: shop}',
    'spec:',
    '  template:',
    '    spec:',
    '      containers:',
    '        - name: web',
    '          ports: [{containerPort: 80}]',
    '          livenessProbe: {httpGet: {path: /health, port: 80}}',
    '          readinessProbe: {httpGet: {path: /health, port: 80}}',
    '        - name: worker',
    '          livenessProbe: {exec: {command: [/bin/true]}}',
    '          readinessProbe: {exec: {command: [/bin/ready]}}',
    '',
  ].join('\n');
  const lint = () => {
    const evidence = new EvidenceMap('1h');
    for (const name of ['web', 'worker'])
      evidence.entries.set(evidenceKey({ kind: 'Deployment', namespace: 'shop', name: 'api' }, name), { ...emptyEvidence(), pods: 2, livenessKills: 3 });
    return lintText(text, { evidence }).findings;
  };

  it("names the static findings on the same container, in the message, the short text and causes; another container's are not its causes", () => {
    const findings = lint();
    linkRuntimeFindings(findings, RULES);
    const restarts = (name: string) => findings.find((finding) => finding.rule === 'runtime-liveness-restarts' && finding.container === name)!;
    const web = restarts('web');
    const staticOnWeb = findings.filter((finding) => finding.container === 'web' && finding.rule !== 'runtime-liveness-restarts');
    assert.ok(staticOnWeb.some((finding) => finding.rule === 'liveness-mirrors-readiness'));
    assert.deepEqual(
      web.causes,
      staticOnWeb.map((finding) => ({ rule: finding.rule, messageId: finding.messageId })),
    );
    assert.ok(
      web.message.endsWith(
        ` The likely cause, found on this container's spec: ${staticOnWeb.map((finding) => `${finding.rule} (${finding.short})`).join('; ')}.`,
      ),
      web.message,
    );
    assert.match(web.short, / \(likely cause: liveness-mirrors-readiness[^)]*\)$/);
    // worker's spec has nothing wrong: its kills have no likely cause on record, and say none.
    const worker = restarts('worker');
    assert.deepEqual(
      findings.filter((finding) => finding.container === 'worker' && !finding.rule.startsWith('runtime-')),
      [],
    );
    assert.equal(worker.causes, undefined);
    assert.doesNotMatch(worker.message, /likely cause/);
    // Static findings are never given causes.
    assert.ok(findings.filter((finding) => !finding.rule.startsWith('runtime-')).every((finding) => finding.causes === undefined));
  });

  it('puts the runtime findings first, each group in its order', () => {
    const findings = lint();
    const ordered = runtimeFirst(findings, RULES);
    const runtime = findings.filter((finding) => finding.rule.startsWith('runtime-'));
    const others = findings.filter((finding) => !finding.rule.startsWith('runtime-'));
    assert.ok(runtime.length >= 2 && others.length >= 1);
    assert.deepEqual(ordered, [...runtime, ...others]);
  });
});

describe('likely causes, found by container', () => {
  const finding = (rule: string, namespace: string | undefined, container: string | undefined, short = `${rule} short`, name = 'web'): Finding => ({
    rule,
    messageId: 'm',
    severity: 'warning',
    message: `${rule} long.`,
    short,
    pointer: '',
    resource: {} as Finding['resource'],
    identity: { apiVersion: 'apps/v1', kind: 'Deployment', name, ...(namespace === undefined ? {} : { namespace }) },
    ...(container === undefined ? {} : { container }),
  });

  it('lists every static finding of the same container in the same namespace, each rule once in the short text', () => {
    const restarts = finding('runtime-liveness-restarts', 'shop', 'web');
    const findings = [
      finding('liveness-mirrors-readiness', 'shop', 'web', 'mirrors'),
      finding('timeout-not-below-period', 'shop', 'web', 'timeout one'),
      finding('timeout-not-below-period', 'shop', 'web', 'timeout two'),
      finding('liveness-mirrors-readiness', 'other', 'web', 'another namespace'),
      finding('missing-readiness-probe', undefined, 'web', 'no namespace'),
      finding('missing-liveness-probe', 'shop', 'web', 'another object', 'api'),
      finding('probe-field-invalid', 'shop', undefined, 'the pod'),
      restarts,
    ];
    linkRuntimeFindings(findings, RULES);
    assert.deepEqual(
      restarts.causes?.map((cause) => cause.rule),
      ['liveness-mirrors-readiness', 'timeout-not-below-period', 'timeout-not-below-period'],
    );
    assert.equal(
      restarts.message,
      "runtime-liveness-restarts long. The likely cause, found on this container's spec: liveness-mirrors-readiness (mirrors); " +
        'timeout-not-below-period (timeout one); timeout-not-below-period (timeout two).',
    );
    assert.equal(restarts.short, 'runtime-liveness-restarts short (likely cause: liveness-mirrors-readiness, timeout-not-below-period)');
  });
});

describe('evidence, filed by container', () => {
  it('keeps objects of different namespaces and names apart, and hands out one entry per container', () => {
    const web = { kind: 'Deployment', namespace: 'shop', name: 'web' };
    const keys = [web, { ...web, namespace: 'other' }, { ...web, name: 'api' }, { kind: 'Deployment', name: 'web' }].map((identity) =>
      evidenceKey(identity, 'c'),
    );
    assert.equal(new Set(keys).size, 4);
    const evidence = new EvidenceMap('1h');
    evidence.entry(web, 'c').livenessKills++;
    evidence.entry(web, 'c').livenessKills++;
    assert.equal(evidence.forContainer({ apiVersion: 'apps/v1', ...web }, 'c')!.livenessKills, 2);
  });
});

describe('runtime rules', () => {
  it('are exactly the rules that read runtime evidence', () => {
    for (const { meta } of RULES) assert.equal(meta.readsEvidence === true, meta.id.startsWith('runtime-'), meta.id);
  });
});

describe('probe failure Events in every shape a kubelet writes them', () => {
  const pod = { namespace: 'shop', name: 'web', owner: undefined, templateHash: undefined, nodeName: undefined, restarts: [] };
  const owners = new Owners([{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' } }], [], [pod]);
  const event = (reason: string, note: string, count = 1) => ({
    reason,
    note,
    regarding: { kind: 'Pod', namespace: 'shop', name: 'web', fieldPath: 'spec.containers{app}' },
    series: { count, lastObservedTime: new Date().toISOString() },
  });
  const read = (...events: ReturnType<typeof event>[]) => {
    const evidence = new EvidenceMap('1h');
    for (const recorded of events) assert.ok(addEvent(evidence, owners, recorded, 0), recorded.note);
    return evidence.forContainer({ apiVersion: 'v1', kind: 'Pod', namespace: 'shop', name: 'web' }, 'app')!;
  };

  it('1.37 and before: every failure an Unhealthy event alike, none said to be ignored', () => {
    const evidence = read(event('Unhealthy', 'Readiness probe failed: HTTP probe failed with statuscode: 503', 7));
    assert.deepEqual([evidence.unhealthy.readinessProbe, evidence.ignored.readinessProbe], [7, 0]);
    assert.equal(evidence.lastFailure.readinessProbe, 'Readiness probe failed: HTTP probe failed with statuscode: 503');
    assert.equal(findingEvidence(evidence).ignored, undefined, 'the JSON says nothing of what no kubelet said');
  });

  it('a count in the note (kubernetes/kubernetes#140417): "(1/3, will be ignored)" ignored, "(3/3)" not, and the quoted failure without it', () => {
    const evidence = read(
      event('Unhealthy', 'Readiness probe failed (1/3, will be ignored): HTTP probe failed with statuscode: 503', 4),
      event('Unhealthy', 'Readiness probe failed (2/3, will be ignored): HTTP probe failed with statuscode: 503', 4),
      event('Unhealthy', 'Readiness probe failed (3/3): HTTP probe failed with statuscode: 503', 4),
    );
    assert.deepEqual([evidence.unhealthy.readinessProbe, evidence.ignored.readinessProbe], [12, 8]);
    assert.equal(evidence.lastFailure.readinessProbe, 'Readiness probe failed: HTTP probe failed with statuscode: 503');
    assert.deepEqual(findingEvidence(evidence).ignored, { livenessProbe: 0, readinessProbe: 8, startupProbe: 0 });
  });

  it('a reason of its own (kubernetes/kubernetes#141531): ProbeFailureIgnored counted as a failure the kubelet ignored, Unhealthy as one that reached the threshold', () => {
    const evidence = read(
      event('ProbeFailureIgnored', 'Liveness probe failed: Get "http://10.0.0.7:8080/livez": context deadline exceeded', 2),
      event('Unhealthy', 'Liveness probe failed: Get "http://10.0.0.7:8080/livez": context deadline exceeded'),
    );
    assert.deepEqual([evidence.unhealthy.livenessProbe, evidence.ignored.livenessProbe], [3, 2]);
    assert.equal(evidence.livenessKills, 0, 'a failure is never a kill: only Killing events are');
  });

  it('reports no readiness failures when every one was ignored, and says how many were where some were not', () => {
    const manifest = [
      'apiVersion: v1',
      'kind: Pod',
      'metadata: {name: web, namespace: shop}',
      'spec:',
      '  containers:',
      '    - name: app',
      '      image: example/app:1',
      '      readinessProbe: {httpGet: {path: /ready, port: 8080}}',
      '',
    ].join('\n');
    const lintWith = (...events: ReturnType<typeof event>[]) => {
      const evidence = new EvidenceMap('1h');
      for (const recorded of events) addEvent(evidence, owners, recorded, 0);
      // How many Pods is counted apart from the events (PodsSeen): one here.
      evidence.entry({ kind: 'Pod', namespace: 'shop', name: 'web' }, 'app').pods = 1;
      return lintText(manifest, { evidence }).findings.filter((finding) => finding.rule === 'runtime-readiness-failures');
    };
    assert.deepEqual(lintWith(event('Unhealthy', 'Readiness probe failed (1/3, will be ignored): refused', 9)), []);
    const [finding] = lintWith(
      event('Unhealthy', 'Readiness probe failed (1/3, will be ignored): refused', 9),
      event('Unhealthy', 'Readiness probe failed (3/3): refused', 3),
    );
    assert.match(finding!.message, /failed 12 times in the last 1h, across 1 Pod \(9 of them below its failureThreshold, which the kubelet ignored\)/);
  });
});
