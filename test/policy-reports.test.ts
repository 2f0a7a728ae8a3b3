// --format openreports and --format policyreport: each report object valid against its project's
// own CustomResourceDefinition (fetched from their Go modules by test/cluster/report-crds.sh), one
// report per namespace split into bounded parts, a result per finding and a pass per clean object.
// The real API server takes them in test/e2e/runtime-evidence.test.ts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import AjvModule from 'ajv';
import { parse } from 'yaml';
import { RULES } from '../rules/index.js';
import { parseArguments, type LintArguments } from '../src/cli/arguments.js';
import type { CommandIo } from '../src/cli/context.js';
import { reportOutcome } from '../src/cli/report-outcome.js';
import { LintSession } from '../src/lint/index.js';
import { unknownCluster } from '../src/engine/cluster-facts.js';
import { Engine } from '../src/engine/engine.js';
import type { KubeObject } from '../src/model/resource.js';
import type { ReportInput } from '../src/report/located.js';
import { podYaml, ROOT, runCli } from './helpers.js';

const Ajv = AjvModule.default ?? AjvModule;

interface Crd {
  spec: { group: string; names: { kind: string }; scope: string; versions: { name: string; schema: { openAPIV3Schema: object } }[] };
}

function reportCrds(): { crds: Crd[] } | { unavailable: string } {
  const run = spawnSync(join(ROOT, 'test/cluster/report-crds.sh'), { encoding: 'utf8', timeout: 300_000 });
  if (run.status !== 0) return { unavailable: `the report CRDs could not be fetched from the Go module proxy: ${run.stderr.trim().split('\n').at(-1)}` };
  return {
    crds: run.stdout
      .trim()
      .split('\n')
      .map((file) => parse(readFileSync(file, 'utf8')) as Crd),
  };
}

const fetched = reportCrds();
const unavailable = 'unavailable' in fetched ? fetched.unavailable : undefined;
if (unavailable !== undefined && process.env.CI !== undefined) throw new Error(unavailable);

/** A validator per apiVersion and kind, from the CRDs' schemas (Kubernetes' x- keywords are not JSON Schema's). */
function validators(crds: Crd[]) {
  const ajv = new Ajv({ strict: false, allErrors: true });
  const byKind = new Map<string, (value: unknown) => boolean>();
  for (const crd of crds)
    for (const version of crd.spec.versions) {
      const validate = ajv.compile(version.schema.openAPIV3Schema);
      byKind.set(`${crd.spec.group}/${version.name} ${crd.spec.names.kind}`, (value) => {
        if (validate(value)) return true;
        throw new Error(`${crd.spec.names.kind}: ${ajv.errorsText(validate.errors)}`);
      });
    }
  return byKind;
}

const report = (format: string, args: string[] = ['examples/shop.yaml']) => {
  const run = runCli([...args, '--format', format, '--fail-on', 'error'], { cwd: ROOT });
  assert.ok(run.code === 0 || run.code === 1, run.stderr);
  return JSON.parse(run.stdout) as { apiVersion: string; kind: string; items: any[] };
};

describe('--format openreports and --format policyreport', { skip: unavailable }, () => {
  const byKind = 'crds' in fetched ? validators(fetched.crds) : new Map();

  for (const [format, apiVersion, kind] of [
    ['openreports', 'openreports.io/v1alpha1', 'Report'],
    ['policyreport', 'wgpolicyk8s.io/v1alpha2', 'PolicyReport'],
  ] as const) {
    it(`${format}: ${kind} objects valid against their CRD, one result per finding, fail at --fail-on`, () => {
      const list = report(format);
      assert.equal(list.kind, 'List');
      assert.deepEqual(
        list.items.map((item) => `${item.apiVersion} ${item.kind} ${item.metadata.namespace}/${item.metadata.name}`),
        [`${apiVersion} ${kind} shop/probe-lint`],
      );
      for (const item of list.items) assert.ok(byKind.get(`${item.apiVersion} ${item.kind}`)!(item));
      // The schema is the CRD's, and it bites: a result it does not know is refused.
      assert.throws(
        () => byKind.get(`${apiVersion} ${kind}`)!({ ...list.items[0], results: [{ policy: 'x', result: 'maybe' }] }),
        /must be equal to one of the allowed values/,
      );
      const [shop] = list.items;
      const findings = JSON.parse(runCli(['examples/shop.yaml', '--format', 'json'], { cwd: ROOT }).stdout).findings as any[];
      assert.deepEqual(
        shop.results.map((result: any) => `${result.policy}/${result.rule} ${result.result} ${result.severity}`).sort(),
        findings
          .map(
            (finding) =>
              `${finding.rule}/${finding.messageId} ${finding.severity === 'error' ? 'fail' : 'warn'} ${{ error: 'high', warning: 'medium', info: 'info' }[finding.severity as string]}`,
          )
          .sort(),
      );
      assert.deepEqual(shop.summary, { pass: 0, fail: 2, warn: 4, error: 0, skip: 0 });
      assert.deepEqual(shop.results[0].resources, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'storefront', namespace: 'shop' }]);
      assert.match(shop.results[0].properties.file, /^examples\/shop\.yaml:\d+:\d+$/);
    });
  }

  it('passes each object without findings, puts objects without a namespace in "default", and splits a namespace into parts of 500 results', () => {
    const directory = mkdtempSync(join(tmpdir(), 'probe-lint-reports-'));
    const clean = podYaml('livenessProbe: {tcpSocket: {port: 80}}\nreadinessProbe: {httpGet: {path: /ready, port: 80}}');
    const many = Array.from({ length: 1100 }, (_, index) =>
      podYaml('readinessProbe: {tcpSocket: {port: 81}, terminationGracePeriodSeconds: 5}').replace('name: p', `name: p${index}\n  namespace: big`),
    );
    writeFileSync(join(directory, 'pods.yaml'), [clean, ...many].join('---\n'));
    const list = report('policyreport', [join(directory, 'pods.yaml'), '--disable', 'missing-liveness-probe']);
    assert.deepEqual(
      list.items.map((item) => `${item.metadata.namespace}/${item.metadata.name} ${item.results.length}`),
      ['big/probe-lint 500', 'big/probe-lint-2 500', 'big/probe-lint-3 100', 'default/probe-lint 1'],
    );
    const [pass] = list.items.at(-1).results;
    assert.equal(pass.result, 'pass');
    assert.deepEqual(pass.resources, [{ apiVersion: 'v1', kind: 'Pod', name: 'p' }]);
    for (const item of list.items) assert.ok(byKind.get(`${item.apiVersion} ${item.kind}`)!(item));
    assert.ok(list.items.every((item) => item.metadata.labels['app.kubernetes.io/managed-by'] === 'probe-lint'));
  });
});

/** The objects as audit lints and reports them, reporting to `io.stdout`. */
async function reportObjects(objects: KubeObject[], format: string, io: Partial<CommandIo>, onReport?: (input: ReportInput) => void): Promise<number> {
  const args = { ...(parseArguments(['-', '--format', format, '--fail-on', 'never']).args as LintArguments) };
  const whole: CommandIo = { stdout: () => {}, stderr: () => {}, readStdin: () => '', isTty: false, env: {}, cwd: process.cwd(), ...io };
  const session = new LintSession(new Engine(RULES, { config: {}, cluster: unknownCluster() }));
  const outcome = session.lintObjects(objects, { minSeverity: args.minSeverity });
  const { code, input } = await reportOutcome(outcome, { args, io: whole, enabledRules: session.engine.enabledRuleIds, report: whole.stdout });
  onReport?.(input);
  return code;
}

describe('the objects a report lists, whatever the format printed', () => {
  it('lists every pod-bearing object to a reader of the report (audit --apply-reports) when the printed format lists none', async () => {
    const objects = [
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'shop' }, spec: { containers: [{ name: 'c', image: 'x' }] } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'shop' } },
    ];
    let listed: string[] = [];
    await reportObjects(objects, 'compact', {}, (input) => (listed = input.objects().map((object) => object.name)));
    assert.deepEqual(listed, ['Pod/shop/a']);
  });
});

describe('a report written in chunks', () => {
  it('waits for stdout to take each chunk before it writes the next', async () => {
    const objects = Array.from({ length: 300 }, (_, index) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `p${index}` },
      spec: { containers: [{ name: 'c', image: 'x', livenessProbe: { tcpSocket: { port: 80 }, timeoutSeconds: 10 } }] },
    }));
    const chunks: string[] = [];
    let waiting = false;
    await reportObjects(objects, 'json', {
      stdout: (text) => {
        assert.equal(waiting, false, 'a chunk written while the last one was still being written');
        chunks.push(text);
      },
      stdoutWritten: () => {
        waiting = true;
        return new Promise((resolve) =>
          setImmediate(() => {
            waiting = false;
            resolve();
          }),
        );
      },
    });
    assert.ok(chunks.length > 1, `${chunks.length} chunks`);
    assert.equal((JSON.parse(chunks.join('')) as { findings: unknown[] }).findings.length, 600);
  });
});
