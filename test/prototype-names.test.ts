// Names JavaScript objects answer from their prototype — "toString", "constructor", "__proto__" —
// are data wherever a manifest, a chart's values, a config file or an Event can hold them: every
// lookup of such a name in a table of ours must miss, never return the prototype's function. (A
// plain scalar `toString` once read as a YAML boolean, a function; `kind: toString` crashed the CLI.)
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { addEvent, Owners } from '../src/cluster/runtime-evidence.js';
import { EvidenceMap } from '../src/engine/runtime-evidence.js';
import { renderedValues } from '../src/source/origin/chart-values.js';
import { FileCache } from '../src/source/read/file-cache.js';
import { resolvePlainScalar } from '../src/source/parse/yaml11-schema.js';
import { runCli } from './helpers.js';
import { helmBinary } from './tools.js';

const NAMES = ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf', 'toLocaleString', 'isPrototypeOf', '__defineGetter__'];

/** Every string a pod-bearing object holds, set to `name`; the keys a user chooses too. */
function manifests(name: string): string {
  const n = JSON.stringify(name);
  const container = `{name: ${n}, image: ${n}, ports: [{name: ${n}, containerPort: 80, protocol: ${n}}], env: [{name: ${n}, value: ${n}}, {name: DB, value: ${n}}],
      livenessProbe: {exec: {command: [${n}, ${n}, -h, ${n}, "$(${name})", "$(DB)"]}},
      readinessProbe: {httpGet: {path: ${n}, port: ${n}, scheme: ${n}, host: ${n}, httpHeaders: [{name: ${n}, value: ${n}}]}},
      startupProbe: {grpc: {port: 9090, service: ${n}}}, restartPolicy: ${n}}`;
  const podSpec = `{restartPolicy: ${n}, containers: [${container}, {name: plain, image: x, livenessProbe: {exec: {command: [${name}, ${name}]}}}]}`;
  const metadata = `{name: ${n}, namespace: ${n}, labels: {${n}: ${n}}, annotations: {${n}: ${n}, probe-lint.dev/ignore: ${n}, probe-lint.dev/ignore.${name}: "*"}}`;
  return [
    `apiVersion: v1\nkind: ${n}\nmetadata: ${metadata}\nspec: {template: {metadata: ${metadata}, spec: ${podSpec}}}`,
    `apiVersion: ${n}\nkind: Deployment\nmetadata: ${metadata}\nspec: {template: {spec: ${podSpec}}}`,
    `apiVersion: apps/v1\nkind: Deployment\nmetadata: ${metadata}\nspec: {replicas: 2, selector: {matchLabels: {${n}: ${n}}}, template: {metadata: ${metadata}, spec: ${podSpec}}}`,
    `apiVersion: v1\nkind: Service\nmetadata: ${metadata}\nspec: {selector: {${n}: ${n}}, ports: [{name: ${n}, port: 80, targetPort: ${n}}]}`,
    `apiVersion: v1\nkind: Pod\n${name}: ${name}\nmetadata: ${metadata}\nspec: ${podSpec}`,
  ].join('\n---\n');
}

describe('names a prototype answers', () => {
  it('stay strings in YAML, whatever their first letter', () => {
    for (const name of NAMES) assert.equal(resolvePlainScalar(name), undefined, name);
  });

  it('go through lint and timeline, in every place a manifest holds a name, as data', () => {
    for (const name of NAMES) {
      const lint = runCli(['-', '--format', 'json', '--fail-on', 'never', '--min-severity', 'info'], { input: manifests(name) });
      assert.equal(lint.code, 0, `${name}: ${lint.stderr}`);
      const report = JSON.parse(lint.stdout);
      assert.deepEqual(report.inputErrors, [], name);
      assert.ok(report.summary.resources >= 5, name);
      assert.doesNotMatch(lint.stdout, /function \w*\(\)|\[native code\]/, `${name}: a function reached the report`);
      const timeline = runCli(['timeline', '-', '--format', 'json'], { input: manifests(name) });
      assert.doesNotMatch(timeline.stderr, /internal error/, `${name}: ${timeline.stderr}`);
      assert.doesNotMatch(timeline.stdout, /\[native code\]/, name);
    }
  });

  it('in a config file are unknown keys, said as such', () => {
    const directory = mkdtempSync(join(tmpdir(), 'probe-lint-prototype-config-'));
    for (const name of NAMES) {
      const file = join(directory, `${name}.yaml`);
      writeFileSync(file, `rules: {${JSON.stringify(name)}: off}\n`);
      const run = runCli(['--config', file, '-'], { input: 'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a, image: b}]}\n' });
      assert.equal(run.code, 2, `${name}: ${run.stderr}`);
      assert.match(run.stderr, /unknown rule/, name);
      assert.doesNotMatch(run.stderr, /internal error/, name);
    }
  });

  it("in a chart's values are values, not the prototype of the values", () => {
    const chart = mkdtempSync(join(tmpdir(), 'probe-lint-prototype-chart-'));
    mkdirSync(join(chart, 'templates'));
    writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: names\nversion: 1.0.0\n');
    writeFileSync(join(chart, 'values.yaml'), `${NAMES.map((name) => `${JSON.stringify(name)}: {enabled: true}`).join('\n')}\nprobe: {path: /ready}\n`);
    writeFileSync(
      join(chart, 'templates/pod.yaml'),
      'apiVersion: v1\nkind: Pod\nmetadata: {name: names}\nspec:\n  containers:\n    - name: app\n      image: app:1\n      readinessProbe: {httpGet: {path: {{ .Values.probe.path }}, port: 8080}}\n',
    );
    const run = runCli([chart, '--helm', helmBinary(), '--format', 'json', '--fail-on', 'never']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).summary.resources, 1);
    // The values as probe-lint reads them to tell which template branches rendered: each name a key of its own.
    writeFileSync(join(chart, 'override.yaml'), '__proto__: {enabled: false}\ntoString: null\n');
    const values = renderedValues(chart, [join(chart, 'override.yaml')], new FileCache())!;
    assert.equal((Object.getOwnPropertyDescriptor(values, '__proto__')?.value as { enabled?: unknown } | undefined)?.enabled, false);
    assert.equal((values.constructor as { enabled?: unknown }).enabled, true);
    assert.equal(Object.hasOwn(values, 'toString'), false, 'null removes the key');
    assert.equal(Object.getPrototypeOf(values), Object.prototype, 'the values keep their prototype: "__proto__" was data');
  });

  it('begin Events audit reads, and are no probe', () => {
    const evidence = new EvidenceMap('1h');
    const pod = { namespace: 'shop', name: 'web', owner: undefined, templateHash: undefined, nodeName: undefined, restarts: [] };
    const owners = new Owners([{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' } }], [], [pod]);
    for (const name of NAMES) {
      const event = {
        reason: 'Unhealthy',
        note: `${name} probe failed: boom`,
        regarding: { kind: 'Pod', namespace: 'shop', name: 'web', fieldPath: 'spec.containers{app}' },
        eventTime: new Date().toISOString(),
      };
      assert.equal(addEvent(evidence, owners, event, 0), undefined, name);
    }
    assert.equal(evidence.entries.size, 0);
  });
});
