// The admission webhook over real HTTPS on loopback, with certificates made for the test.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fastJsonPatch from 'fast-json-patch';
import { RULES } from '../rules/index.js';
import { defineRule, PROBED_CONTAINERS } from '../src/engine/rule.js';
import { BODY_LIMIT_BYTES } from '../src/webhook/server.js';
import { admissionReview, container, cronJob, deployment, pod, rollout } from './admission.js';
import { openApiErrors } from './openapi.js';
import { startHarness, withHarness, type Harness } from './webhook-harness.js';

const badProbes = () =>
  container('web', {
    livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, timeoutSeconds: 10, initialDelaySeconds: 60 },
    readinessProbe: { httpGet: { path: '/ready', port: 8080 }, terminationGracePeriodSeconds: 5 },
  });
const goodProbes = () =>
  container('web', {
    livenessProbe: { httpGet: { path: '/livez', port: 8080 } },
    readinessProbe: { httpGet: { path: '/readyz', port: 8080 } },
  });
const slowStart = () =>
  container('search', {
    livenessProbe: { httpGet: { path: '/healthz', port: 9200 }, initialDelaySeconds: 90 },
    readinessProbe: { httpGet: { path: '/ready', port: 9200 } },
  });

function decodePatch(response: any): any[] {
  assert.equal(response.patchType, 'JSONPatch');
  return JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8'));
}

describe('validating webhook', () => {
  let warn: Harness;
  let enforce: Harness;
  before(async () => {
    warn = await startHarness();
    enforce = await startHarness(
      { webhook: { mode: 'enforce', namespaces: { legacy: { mode: 'warn' } } } },
      { labels: { quiet: { 'probe-lint.dev/mode': 'off' } } },
    );
  });
  after(async () => {
    await warn.server.close();
    await enforce.server.close();
  });

  it('answers a Pod CREATE in warn mode with warnings: one short line each, no control characters', async () => {
    const review = admissionReview({ operation: 'CREATE', object: pod([badProbes()]) });
    const reply = await warn.post('/validate', review);
    assert.equal(reply.status, 200);
    assert.equal(reply.json.apiVersion, 'admission.k8s.io/v1');
    assert.equal(reply.json.kind, 'AdmissionReview');
    const { response } = reply.json;
    assert.equal(response.uid, review.request.uid);
    assert.equal(response.allowed, true);
    assert.equal(response.patch, undefined, 'a validating response carries no patch');
    assert.equal(response.patchType, undefined);
    assert.deepEqual(
      new Set(response.warnings.map((line: string) => /\[([a-z-]+)\]$/.exec(line)?.[1])),
      new Set(['readiness-termination-grace-period', 'timeout-not-below-period']),
    );
    for (const line of response.warnings) {
      // The rule's own short text, whole: within the API server's 256 runes, never cut, and under 120 apart from the names.
      assert.ok([...line].length <= 256, line);
      assert.doesNotMatch(line, /…/, line);
      assert.ok([...line.replace(/^container "web": /, '').replace(/ \[[a-z-]+\]$/, '')].length <= 120, line);
      assert.doesNotMatch(line, /[\u0000-\u001f\u007f]/);
      assert.match(line, /^container "web": /);
    }
    assert.deepEqual(
      response.warnings,
      [
        'container "web": readinessProbe.terminationGracePeriodSeconds (5) is rejected by the API server; remove it [readiness-termination-grace-period]',
        'container "web": livenessProbe timeout 10 s ≥ period 10 s: hanging checks run back to back; set timeoutSeconds ≤ 9 [timeout-not-below-period]',
      ],
      'errors first, each in its own words',
    );
  });

  it('denies errors in enforce mode with status 400 and a message naming container, rule and fix', async () => {
    const reply = await enforce.post('/validate', admissionReview({ operation: 'CREATE', object: pod([badProbes()]) }));
    assert.equal(reply.status, 200);
    const { response } = reply.json;
    assert.equal(response.allowed, false);
    assert.equal(response.status.code, 400);
    assert.match(
      response.status.message,
      /^probe-lint found 1 problem that the cluster would reject or that can never work:\n- container "web": readinessProbe\.terminationGracePeriodSeconds is set \(5\).*Remove the field.* \[readiness-termination-grace-period\]$/s,
    );
    assert.ok(
      response.warnings.some((line: string) => line.endsWith('[timeout-not-below-period]')),
      'warnings still come with a denial',
    );
  });

  it("takes the mode from the config's namespace entry, else the default, and lets a label only tighten it", async () => {
    const review = (namespace: string) => admissionReview({ operation: 'CREATE', object: pod([badProbes()], { namespace }) });
    // A tenant's label "off" does not switch enforcement off...
    const quiet = (await enforce.post('/validate', review('quiet'))).json.response;
    assert.equal(quiet.allowed, false);
    // ...while the platform's own entry for a namespace decides.
    const legacy = (await enforce.post('/validate', review('legacy'))).json.response;
    assert.equal(legacy.allowed, true);
    assert.ok(legacy.warnings.length > 0);
    // A label that makes a namespace stricter is followed.
    await withHarness(
      { webhook: { mode: 'warn' } },
      async (tightened) => {
        assert.equal((await tightened.post('/validate', review('strict'))).json.response.allowed, false);
        assert.ok((await tightened.post('/validate', review('quiet'))).json.response.warnings.length > 0, 'off does not loosen warn either');
      },
      { labels: { strict: { 'probe-lint.dev/mode': 'enforce' }, quiet: { 'probe-lint.dev/mode': 'off' } } },
    );
    // Labels set any mode only when the config trusts them, and none when it ignores them.
    const trusted = await startHarness({ webhook: { mode: 'enforce', namespaceLabels: 'trusted' } }, { labels: { quiet: { 'probe-lint.dev/mode': 'off' } } });
    const ignored = await startHarness({ webhook: { mode: 'warn', namespaceLabels: 'ignored' } }, { labels: { strict: { 'probe-lint.dev/mode': 'enforce' } } });
    try {
      const off = (await trusted.post('/validate', review('quiet'))).json.response;
      assert.deepEqual(off, { uid: off.uid, allowed: true });
      assert.equal((await ignored.post('/validate', review('strict'))).json.response.allowed, true);
    } finally {
      await trusted.server.close();
      await ignored.server.close();
    }
  });

  it('on UPDATE never blocks an unchanged legacy object, but blocks a change that introduces or keeps an error', async () => {
    const old = deployment([badProbes()]);
    const scaled = deployment([badProbes()], {}, 10);
    const scaledReply = (await enforce.post('/validate', admissionReview({ operation: 'UPDATE', object: scaled, oldObject: old }))).json.response;
    assert.equal(scaledReply.allowed, true);
    assert.ok(scaledReply.warnings.some((line: string) => line.endsWith('[readiness-termination-grace-period]')));

    const edited = deployment([{ ...badProbes(), image: 'registry.example.com/web:2.0' }]);
    const editedReply = (await enforce.post('/validate', admissionReview({ operation: 'UPDATE', object: edited, oldObject: old }))).json.response;
    assert.equal(editedReply.allowed, false);

    const introduced = (
      await enforce.post('/validate', admissionReview({ operation: 'UPDATE', object: deployment([badProbes()]), oldObject: deployment([goodProbes()]) }))
    ).json.response;
    assert.equal(introduced.allowed, false);
  });

  it('allows DELETE and CONNECT untouched', async () => {
    for (const operation of ['DELETE', 'CONNECT'] as const) {
      const review = admissionReview({ operation, oldObject: pod([badProbes()]) });
      const reply = await enforce.post('/validate', review);
      assert.deepEqual(reply.json.response, { uid: review.request.uid, allowed: true });
    }
  });

  it('evaluates dry-run requests the same way', async () => {
    const reply = await enforce.post('/validate', admissionReview({ operation: 'CREATE', object: pod([badProbes()]), dryRun: true }));
    assert.equal(reply.json.response.allowed, false);
  });

  it('checks pod templates of Deployments, CronJobs and custom resources', async () => {
    for (const object of [deployment([badProbes()]), cronJob([badProbes()]), rollout([badProbes()])]) {
      const { response } = (await enforce.post('/validate', admissionReview({ operation: 'CREATE', object }))).json;
      assert.equal(response.allowed, false, object.kind);
      assert.match(response.status.message, /readiness-termination-grace-period/);
    }
  });

  it('allows objects that are not pod-bearing, and pods without containers', async () => {
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'shop' }, data: { a: 'b' } };
    for (const object of [configMap, { ...pod([]), spec: { containers: [] } }]) {
      const review = admissionReview({ operation: 'CREATE', object });
      assert.deepEqual((await enforce.post('/validate', review)).json.response, { uid: review.request.uid, allowed: true });
    }
  });

  it('logs one line per review with uid, kind, namespace/name, operation, decision, rules and latency, and never the object', async () => {
    const review = admissionReview({ operation: 'CREATE', object: pod([badProbes()], { name: 'logged' }) });
    await warn.post('/validate', review);
    const lines = warn.logs.lines.filter((line) => line.uid === review.request.uid);
    assert.equal(lines.length, 1);
    const [line] = lines;
    assert.equal(line.msg, 'admission review');
    assert.deepEqual(
      { kind: line.kind, namespace: line.namespace, name: line.name, operation: line.operation, decision: line.decision },
      { kind: 'Pod', namespace: 'shop', name: 'logged', operation: 'CREATE', decision: 'warned' },
    );
    assert.ok(line.rules.includes('readiness-termination-grace-period'));
    assert.equal(typeof line.latencyMs, 'number');
    assert.doesNotMatch(warn.logs.text(), /hunter2|DATABASE_PASSWORD|registry\.example\.com/);
  });
});

describe('mutating webhook', () => {
  let harness: Harness;
  let templates: Harness;
  before(async () => {
    harness = await startHarness({}, { labels: { inject: { 'probe-lint.dev/inject-startup-probe': 'true' } } });
    templates = await startHarness({ webhook: { injectStartupProbe: true, mutateTemplates: true } });
  });
  after(async () => {
    await harness.server.close();
    await templates.server.close();
  });

  async function mutateAndCheck(h: Harness, object: any, apiVersionKind: string) {
    const review = admissionReview({ operation: 'CREATE', object });
    const { response } = (await h.post('/mutate', review)).json;
    assert.equal(response.uid, review.request.uid);
    assert.equal(response.allowed, true);
    const patch = decodePatch(response);
    for (const operation of patch) {
      assert.match(
        operation.path,
        /\/(containers|initContainers)\/\d+\/(livenessProbe|readinessProbe|startupProbe)(\/|$)|^\/metadata\/annotations(\/probe-lint\.dev~1injected)?$/,
        `patch touches ${operation.path}`,
      );
    }
    const patched = fastJsonPatch.applyPatch(structuredClone(object), patch, true, false).newDocument;
    assert.deepEqual(openApiErrors(patched), [], `${apiVersionKind} after the patch is not valid against the official schema`);
    return { patch, patched };
  }

  it('injects a startup probe into a Pod on CREATE when the namespace asks for it; the result is a valid Pod that re-reviews clean', async () => {
    const object = pod([slowStart()], { namespace: 'inject' });
    const before = (await harness.post('/validate', admissionReview({ operation: 'CREATE', object }))).json.response;
    const { patch, patched } = await mutateAndCheck(harness, object, 'v1/Pod');
    assert.deepEqual(
      patch.map((operation) => `${operation.op} ${operation.path}`),
      ['add /spec/containers/0/startupProbe', 'add /spec/containers/0/livenessProbe/initialDelaySeconds', 'add /metadata/annotations'],
    );
    assert.deepEqual(patched.spec.containers[0].startupProbe, {
      httpGet: { path: '/healthz', port: 9200, scheme: 'HTTP' },
      periodSeconds: 10,
      failureThreshold: 12,
      timeoutSeconds: 1,
    });
    assert.deepEqual(patched.metadata.annotations, { 'probe-lint.dev/injected': 'liveness-without-startup-probe:search' });

    // Re-reviewed: the finding is gone and nothing new appeared.
    const afterValidate = (await harness.post('/validate', admissionReview({ operation: 'CREATE', object: patched }))).json.response;
    assert.deepEqual(
      afterValidate.warnings ?? [],
      (before.warnings ?? []).filter((line: string) => !line.endsWith('[liveness-without-startup-probe]')),
    );
    const again = (await harness.post('/mutate', admissionReview({ operation: 'CREATE', object: patched }))).json.response;
    assert.equal(again.patch, undefined, 'a reinvocation patches nothing');
    assert.equal(again.patchType, undefined);
  });

  it('injects on the object annotation too, and merges into existing annotations', async () => {
    const object = pod([slowStart()], { namespace: 'shop', annotations: { 'probe-lint.dev/inject-startup-probe': 'true', team: 'search' } });
    const { patch, patched } = await mutateAndCheck(harness, object, 'v1/Pod');
    assert.deepEqual(patch.at(-1), { op: 'add', path: '/metadata/annotations/probe-lint.dev~1injected', value: 'liveness-without-startup-probe:search' });
    assert.equal(patched.metadata.annotations.team, 'search');
  });

  it('does nothing where injection is not enabled, on Pod UPDATE, or for templates unless configured', async () => {
    const plain = (await harness.post('/mutate', admissionReview({ operation: 'CREATE', object: pod([slowStart()]) }))).json.response;
    assert.equal(plain.patch, undefined);
    const update = (
      await harness.post(
        '/mutate',
        admissionReview({ operation: 'UPDATE', object: pod([slowStart()], { namespace: 'inject' }), oldObject: pod([slowStart()], { namespace: 'inject' }) }),
      )
    ).json.response;
    assert.equal(update.patch, undefined);
    const template = (await harness.post('/mutate', admissionReview({ operation: 'CREATE', object: deployment([slowStart()], { namespace: 'inject' }) }))).json
      .response;
    assert.equal(template.patch, undefined);
  });

  it('patches workload templates when configured; each result is valid against its official schema', async () => {
    const { patched } = await mutateAndCheck(templates, deployment([slowStart()]), 'apps/v1/Deployment');
    assert.ok(patched.spec.template.spec.containers[0].startupProbe);
    const cron = await mutateAndCheck(templates, cronJob([slowStart()]), 'batch/v1/CronJob');
    assert.ok(cron.patched.spec.jobTemplate.spec.template.spec.containers[0].startupProbe);
  });

  it('returns the patch on dry runs without counting it as applied', async () => {
    const before = await templates.server.metrics.patches.get();
    const count = (values: typeof before) => values.values.reduce((sum, value) => sum + value.value, 0);
    const { response } = (await templates.post('/mutate', admissionReview({ operation: 'CREATE', object: pod([slowStart()]), dryRun: true }))).json;
    assert.ok(decodePatch(response).length > 0);
    assert.equal(count(await templates.server.metrics.patches.get()), count(before));
  });
});

describe('bad input', () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness();
  });
  after(async () => harness.server.close());

  async function expectGoodRequestStillServed() {
    const review = admissionReview({ operation: 'CREATE', object: pod([goodProbes()]) });
    const reply = await harness.post('/validate', review);
    assert.equal(reply.status, 200);
    assert.equal(reply.json.response.uid, review.request.uid);
  }

  const cases: [string, unknown, string | undefined, number, RegExp][] = [
    ['a body that is not JSON', '{"apiVersion": "admission.k8s.io/v1", ', undefined, 400, /JSON/i],
    [
      'a wrong content type',
      JSON.stringify(admissionReview({ operation: 'CREATE', object: pod([goodProbes()]) })),
      'text/plain',
      400,
      /Content-Type must be application\/json/,
    ],
    ['a review without request', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, undefined, 400, /^request is missing/],
    [
      'a request without uid',
      { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { operation: 'CREATE', kind: { kind: 'Pod' } } },
      undefined,
      400,
      /^request\.uid must be a non-empty string$/,
    ],
    [
      'a v1beta1 review',
      { ...admissionReview({ operation: 'CREATE', object: pod([]) }), apiVersion: 'admission.k8s.io/v1beta1' },
      undefined,
      400,
      /^only admission\.k8s\.io\/v1 is supported \(got apiVersion "admission\.k8s\.io\/v1beta1"\); set admissionReviewVersions: \["v1"\]/,
    ],
    [
      'a wrong kind',
      { ...admissionReview({ operation: 'CREATE', object: pod([]) }), kind: 'TokenReview' },
      undefined,
      400,
      /^kind must be AdmissionReview \(got "TokenReview"\)$/,
    ],
  ];
  for (const [what, body, contentType, status, message] of cases) {
    it(`answers ${what} with ${status} and a JSON error, logs it once, and keeps serving`, async () => {
      const logged = harness.logs.lines.length;
      const reply = await harness.post('/validate', body, contentType);
      assert.equal(reply.status, status);
      assert.equal(reply.json.statusCode, status);
      assert.match(reply.json.message, message);
      const newLines = harness.logs.lines.slice(logged).filter((line) => line.msg === 'bad admission request');
      assert.equal(newLines.length, 1);
      await expectGoodRequestStillServed();
    });
  }

  it(`answers a body above ${BODY_LIMIT_BYTES} bytes with 413`, async () => {
    const object = pod([goodProbes()]);
    object.metadata.annotations = { padding: 'x'.repeat(BODY_LIMIT_BYTES) };
    const reply = await harness.post('/mutate', admissionReview({ operation: 'CREATE', object }));
    assert.equal(reply.status, 413);
    assert.equal(reply.json.statusCode, 413);
    await expectGoodRequestStillServed();
  });

  it('allows the object when a rule throws (fail-open per rule), logs the rule and counts it', async () => {
    const exploding = defineRule({
      meta: {
        id: 'exploding-rule',
        severity: 'error',
        summary: 'throws',
        remediation: 'none',
        scope: PROBED_CONTAINERS,
        messages: {},
        policy: { notExpressible: 'a test rule' },
      },
      checkContainer() {
        throw new Error('boom');
      },
    });
    await withHarness(
      { webhook: { mode: 'enforce' } },
      async (broken) => {
        const review = admissionReview({ operation: 'CREATE', object: pod([goodProbes()]) });
        const reply = await broken.post('/validate', review);
        assert.equal(reply.status, 200);
        assert.equal(reply.json.response.allowed, true);
        assert.ok(broken.logs.lines.some((line) => line.rule === 'exploding-rule' && line.uid === review.request.uid && line.level === 50));
        const failures = await broken.server.metrics.ruleFailures.get();
        assert.deepEqual(
          failures.values.map((value) => [value.labels.rule, value.value]),
          [['exploding-rule', 1]],
        );
      },
      { rules: [...RULES, exploding] },
    );
  });
});

describe('health and metrics', () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness();
  });
  after(async () => harness.server.close());

  it('serves /healthz and /readyz', async () => {
    assert.deepEqual((await harness.get('/healthz')).json, { status: 'ok' });
    assert.deepEqual((await harness.get('/readyz')).json, { status: 'ready' });
  });

  it('exports requests, latency by endpoint and decision, and findings by rule and severity', async () => {
    await harness.post('/validate', admissionReview({ operation: 'CREATE', object: pod([badProbes()]) }));
    const reply = await harness.get('/metrics');
    assert.match(reply.headers['content-type'] as string, /^text\/plain/);
    assert.match(reply.text, /probe_lint_admission_requests_total\{endpoint="validate",decision="warned"\} 1/);
    assert.match(reply.text, /probe_lint_admission_duration_seconds_bucket\{le="0\.01",endpoint="validate",decision="warned"\} 1/);
    assert.match(reply.text, /probe_lint_findings_total\{rule="readiness-termination-grace-period",severity="error"\} 1/);
    assert.match(reply.text, /# TYPE probe_lint_patches_applied_total counter/);
  });
});
