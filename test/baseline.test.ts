// Adopting probe-lint in a repository with history: a baseline records today's findings, later runs
// fail only on new ones, fixed ones are said, and the key survives edits that do not touch the
// finding (other lines, document order, an object moved to another file). Every format's fingerprint
// is the same key; SARIF marks each result new or unchanged and still validates.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { RULES } from '../rules/index.js';
import { unknownCluster } from '../src/engine/cluster-facts.js';
import { Engine } from '../src/engine/engine.js';
import { standaloneResource, type KubeObject } from '../src/model/resource.js';
import { findingKey } from '../src/report/finding-key.js';
import { ROOT, runCli } from './helpers.js';
import { kubectlBinary } from './tools.js';

const SHOP = readFileSync(join(ROOT, 'examples/shop.yaml'), 'utf8');
/** A Deployment with one container whose liveness probe waits as long as its period (a new warning). */
const NEW_BAD = `apiVersion: apps/v1
kind: Deployment
metadata: {name: checkout, namespace: shop}
spec:
  selector: {matchLabels: {app: checkout}}
  template:
    metadata: {labels: {app: checkout}}
    spec:
      containers:
        - name: checkout
          image: example/checkout:1
          livenessProbe:
            httpGet: {path: /live, port: 8080}
            timeoutSeconds: 10
          readinessProbe:
            httpGet: {path: /ready, port: 8080}
`;

let work: string;
before(() => {
  work = mkdtempSync(join(tmpdir(), 'probe-lint-baseline-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

/** A fresh repository holding `files`. */
function repository(name: string, files: Record<string, string>): string {
  const directory = join(work, name);
  mkdirSync(directory, { recursive: true });
  spawnSync('git', ['init', '-q'], { cwd: directory });
  for (const [path, text] of Object.entries(files)) writeFileSync(join(directory, path), text);
  return directory;
}

interface JsonRun {
  code: number;
  stderr: string;
  findings: { rule: string; container: string | null; fingerprint: string }[];
  baseline?: { file: string; baselined: { fingerprint: string }[]; fixed: { rule: string; object: string; container: string | null; count: number }[] };
}

function lintJson(cwd: string, args: string[]): JsonRun {
  const run = runCli([...args, '--format', 'json'], { cwd });
  const report = JSON.parse(run.stdout);
  return { code: run.code ?? -1, stderr: run.stderr, findings: report.findings, baseline: report.baseline };
}

describe('a baseline', () => {
  it('records every finding, after which the same files pass: nothing is new, and the report says how many are old', () => {
    const repo = repository('record', { 'shop.yaml': SHOP });
    const before = lintJson(repo, ['shop.yaml']);
    assert.equal(before.code, 1);
    const written = runCli(['shop.yaml', '--write-baseline'], { cwd: repo });
    assert.equal(written.code, 0, written.stderr);
    assert.match(written.stderr, new RegExp(`wrote ${before.findings.length} finding\\(s\\) to the baseline \\.probe-lint-baseline\\.json`));
    const file = JSON.parse(readFileSync(join(repo, '.probe-lint-baseline.json'), 'utf8'));
    assert.equal(file.version, 1);
    const recorded = (file.entries as { count: number }[]).reduce((sum, entry) => sum + entry.count, 0);
    assert.equal(recorded, before.findings.length);
    const after = lintJson(repo, ['shop.yaml']);
    assert.deepEqual([after.code, after.findings], [0, []]);
    assert.equal(after.baseline!.baselined.length, before.findings.length);
    // The fingerprints of the old findings are what they were before there was a baseline.
    assert.deepEqual(after.baseline!.baselined.map((finding) => finding.fingerprint).sort(), before.findings.map((finding) => finding.fingerprint).sort());
    const text = runCli(['shop.yaml'], { cwd: repo });
    assert.match(
      text.stdout,
      new RegExp(`no problems in 1 file, 2 resources, 2 containers; ${before.findings.length} in the baseline \\.probe-lint-baseline\\.json \\(not counted\\)`),
    );
  });

  it('after a change that adds one bad probe and moves unrelated lines, finds exactly the new one (exit 1); after a fix, says fixed (exit 0) and --prune-baseline drops it', () => {
    const repo = repository('change', { 'shop.yaml': SHOP });
    assert.equal(runCli(['.', '--write-baseline'], { cwd: repo }).code, 0);
    // Unrelated edits: a comment block at the top, the documents in the other order, a new file.
    const [service, deployment] = SHOP.split(/^---\n/m);
    writeFileSync(join(repo, 'shop.yaml'), `# moved around\n\n${deployment}---\n# the Service\n${service}`);
    writeFileSync(join(repo, 'checkout.yaml'), NEW_BAD);
    const changed = lintJson(repo, ['.']);
    assert.equal(changed.code, 1);
    assert.deepEqual(
      changed.findings.map((finding) => `${finding.rule} ${finding.container}`),
      ['timeout-not-below-period checkout'],
    );
    assert.deepEqual(changed.baseline!.fixed, []);
    // Fix an old finding: the storefront's timeout goes below its period.
    writeFileSync(join(repo, 'checkout.yaml'), NEW_BAD.replace('timeoutSeconds: 10', 'timeoutSeconds: 2'));
    writeFileSync(join(repo, 'shop.yaml'), SHOP.replace('            timeoutSeconds: 10\n', '            timeoutSeconds: 2\n'));
    const fixed = lintJson(repo, ['.']);
    assert.equal(fixed.code, 0, JSON.stringify(fixed.findings));
    assert.deepEqual(
      fixed.baseline!.fixed.map((entry) => `${entry.rule} ${entry.object} ${entry.container} ${entry.count}`),
      ['timeout-not-below-period Deployment/shop/storefront storefront 1'],
    );
    const text = runCli(['.'], { cwd: repo });
    assert.match(
      text.stdout,
      /fixed since the baseline \.probe-lint-baseline\.json[^\n]*\n {2}fixed {2}timeout-not-below-period {2}Deployment\/shop\/storefront container=storefront\n/,
    );
    assert.match(text.stdout, /, 1 fixed$/m);
    const entries = () => JSON.parse(readFileSync(join(repo, '.probe-lint-baseline.json'), 'utf8')).entries.length;
    const before = entries();
    const pruned = runCli(['.', '--prune-baseline'], { cwd: repo });
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.match(pruned.stderr, /pruned 1 fixed finding\(s\)/);
    assert.equal(entries(), before - 1);
    assert.deepEqual(lintJson(repo, ['.']).baseline!.fixed, []);
  });

  it('keeps a probe’s findings old while its numbers are tuned, and makes them new when it checks something else', () => {
    const repo = repository('values', { 'shop.yaml': SHOP });
    assert.equal(runCli(['.', '--write-baseline'], { cwd: repo }).code, 0);
    // A default written out, a timeout changed and still too long: the same findings.
    writeFileSync(
      join(repo, 'shop.yaml'),
      SHOP.replace('            timeoutSeconds: 10\n', '            timeoutSeconds: 12\n            failureThreshold: 3\n'),
    );
    assert.deepEqual(lintJson(repo, ['.']).findings, []);
    // The liveness probe checks another path: no longer a mirror of readiness (fixed), and its timeout finding is about a new check.
    writeFileSync(
      join(repo, 'shop.yaml'),
      SHOP.replace('              path: /health\n              port: http\n', '              path: /live\n              port: http\n'),
    );
    const run = lintJson(repo, ['.']);
    assert.deepEqual(
      run.findings.map((finding) => finding.rule),
      ['timeout-not-below-period'],
    );
    assert.deepEqual(
      run.baseline!.fixed.map((entry) => entry.rule),
      ['liveness-mirrors-readiness', 'timeout-not-below-period'],
    );
  });

  it('counts a key as often as it was recorded: a second object with the same finding is new', () => {
    const repo = repository('counted', { 'a.yaml': NEW_BAD });
    assert.equal(runCli(['.', '--write-baseline'], { cwd: repo }).code, 0);
    // The same object again in another file (two overlays' output, a copy): one is old, one is new.
    writeFileSync(join(repo, 'b.yaml'), NEW_BAD);
    const run = lintJson(repo, ['.']);
    assert.deepEqual([run.code, run.findings.length, run.baseline!.baselined.length], [1, 1, 1]);
    assert.notEqual(run.findings[0]!.fingerprint, run.baseline!.baselined[0]!.fingerprint, 'fingerprints stay unique in a report');
  });

  it('is named by --baseline or the config, relative to the config file, and is refused by name when it is a link, not a baseline, or missing', () => {
    const repo = repository('named', { 'shop.yaml': SHOP });
    mkdirSync(join(repo, 'ci'));
    assert.equal(runCli(['.', '--write-baseline', '--baseline', 'ci/old.json'], { cwd: repo }).code, 0);
    assert.equal(lintJson(repo, ['.', '--baseline', 'ci/old.json']).code, 0);
    writeFileSync(join(repo, '.probe-lint.yaml'), 'baseline: ci/old.json\n');
    assert.equal(lintJson(repo, ['.']).baseline!.file, 'ci/old.json');
    rmSync(join(repo, '.probe-lint.yaml'));
    const refused = (args: string[], pattern: RegExp) => {
      const run = runCli(['.', ...args], { cwd: repo });
      assert.equal(run.code, 2, run.stdout);
      assert.match(run.stderr, pattern);
      return run;
    };
    refused(['--baseline', 'ci/none.json'], /cannot use the baseline ci\/none\.json: cannot read: no such file or directory; write one with --write-baseline/);
    writeFileSync(join(work, 'secret.txt'), 'TOKEN=hunter2-do-not-print\n');
    symlinkSync(join(work, 'secret.txt'), join(repo, 'ci/link.json'));
    const linked = refused(['--baseline', 'ci/link.json'], /cannot use the baseline ci\/link\.json: it is a symbolic link/);
    assert.doesNotMatch(linked.stderr + linked.stdout, /hunter2/);
    // What is not JSON is said by position: the parser's own message would quote the text.
    writeFileSync(join(repo, 'ci/text.json'), 'TOKEN=hunter2-do-not-print\n');
    const text = refused(['--baseline', 'ci/text.json'], /ci\/text\.json: not JSON/);
    assert.doesNotMatch(text.stderr, /hunter2/);
    writeFileSync(join(repo, 'ci/entry.json'), JSON.stringify({ version: 1, entries: [{ key: 'x', rule: 'r', object: 'o', container: null, count: 1 }] }));
    refused(['--baseline', 'ci/entry.json'], /ci\/entry\.json: entries\[0\] is not an entry/);
    writeFileSync(join(repo, 'ci/version.json'), JSON.stringify({ version: 9, entries: [] }));
    refused(['--baseline', 'ci/version.json'], /not a probe-lint baseline of version 1/);
    const both = runCli(['.', '--write-baseline', '--prune-baseline'], { cwd: repo });
    assert.equal(both.code, 2);
    // Nothing to prune is said, not passed over.
    refused(['--prune-baseline'], /cannot use the baseline \.probe-lint-baseline\.json: cannot read: no such file or directory/);
  });

  it('is not written from a run with input errors (the unread findings would be new later)', () => {
    const repo = repository('errors', { 'shop.yaml': SHOP, 'broken.yaml': 'kind: Pod\nmetadata: [oops\n' });
    const run = runCli(['.', '--write-baseline'], { cwd: repo });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /the baseline \.probe-lint-baseline\.json is not written: 1 input error/);
    assert.throws(() => readFileSync(join(repo, '.probe-lint-baseline.json')), /ENOENT/);
  });

  it('marks each SARIF result new or unchanged, and the log is valid SARIF 2.1.0', () => {
    const repo = repository('sarif', { 'shop.yaml': SHOP });
    assert.equal(runCli(['.', '--write-baseline'], { cwd: repo }).code, 0);
    writeFileSync(join(repo, 'checkout.yaml'), NEW_BAD);
    const run = runCli(['.', '--format', 'sarif'], { cwd: repo });
    assert.equal(run.code, 1);
    const results = JSON.parse(run.stdout).runs[0].results as { ruleId: string; baselineState: string }[];
    assert.deepEqual(
      results.filter((result) => result.baselineState === 'new').map((result) => result.ruleId),
      ['timeout-not-below-period'],
    );
    assert.ok(results.filter((result) => result.baselineState === 'unchanged').length >= 5);
    const multitool = join(ROOT, 'tools/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool');
    chmodSync(multitool, 0o755);
    writeFileSync(join(work, 'baseline.sarif'), run.stdout);
    const validation = spawnSync(
      multitool,
      ['validate', join(work, 'baseline.sarif'), '--output', join(work, 'baseline-validation.sarif'), '--log', 'ForceOverwrite'],
      {
        encoding: 'utf8',
      },
    );
    assert.equal(validation.status, 0, validation.stdout + validation.stderr);
    const problems = JSON.parse(readFileSync(join(work, 'baseline-validation.sarif'), 'utf8')).runs[0].results.filter(
      (result: { level?: string }) => result.level === 'error' || result.level === 'warning' || result.level === undefined,
    );
    assert.deepEqual(problems, []);
  });
});

describe('a file named alone', () => {
  const base = {
    'kustomization.yaml': 'resources: [web.yaml, worker.yaml]\n',
    'web.yaml': NEW_BAD.replace(/checkout/g, 'web'),
    'worker.yaml': NEW_BAD.replace(/checkout/g, 'worker'),
  };

  it('is linted through its kustomization, and only its own findings are shown and counted for the exit code; the others are counted apart', () => {
    const repo = repository('scoped', base);
    const kustomize = ['--kustomize', kubectlBinary()];
    const whole = lintJson(repo, ['.', ...kustomize]);
    assert.deepEqual(whole.findings.map((finding) => finding.container).sort(), ['web', 'worker']);
    const one = runCli(['worker.yaml', ...kustomize, '--format', 'json'], { cwd: repo });
    const report = JSON.parse(one.stdout);
    assert.deepEqual([one.code, report.findings.map((finding: { file: string }) => finding.file)], [1, ['worker.yaml']]);
    assert.equal(report.outsideInputs, 1);
    const text = runCli(['worker.yaml', ...kustomize], { cwd: repo });
    assert.match(text.stdout, /; 1 in other files of what was rendered not shown/);
    // A baseline of the named file alone would miss the rest of the rendering.
    const refused = runCli(['worker.yaml', ...kustomize, '--write-baseline'], { cwd: repo });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--write-baseline records every finding of what is rendered, and 1 are in files not named: give it their directory/);
    // A fixed web.yaml makes nothing of worker.yaml's run fail; the baseline's other files are neither found nor fixed.
    assert.equal(runCli(['.', ...kustomize, '--write-baseline'], { cwd: repo }).code, 0);
    writeFileSync(join(repo, 'web.yaml'), base['web.yaml'].replace('timeoutSeconds: 10', 'timeoutSeconds: 2'));
    const scoped = lintJson(repo, ['worker.yaml', ...kustomize]);
    assert.deepEqual([scoped.code, scoped.findings, scoped.baseline!.fixed], [0, [], []]);
    assert.equal(lintJson(repo, ['.', ...kustomize]).baseline!.fixed.length, 1);
  });
});

describe('the finding key', () => {
  const engine = new Engine(RULES, { config: {}, cluster: unknownCluster() });
  const keysOf = (text: string) =>
    parseAllDocuments(text)
      .map((document) => document.toJS() as KubeObject | null)
      .filter((object): object is KubeObject => object !== null)
      .flatMap((object) => engine.lint([{ resources: [standaloneResource(object)] }]).findings.map((finding) => findingKey(finding)))
      .sort();

  it('stays the same under edits that do not touch the finding: comments between lines, document order, container order', () => {
    const reference = keysOf(SHOP);
    assert.ok(reference.length >= 5);
    const [service, deployment] = SHOP.split(/^---\n/m) as [string, string];
    const edits = fc.record({ reorderDocuments: fc.boolean(), reorderContainers: fc.boolean(), comments: fc.array(fc.nat(), { maxLength: 6 }) });
    fc.assert(
      fc.property(edits, ({ reorderDocuments, reorderContainers, comments }) => {
        let shop = deployment;
        if (reorderContainers) {
          const object = parseAllDocuments(deployment)[0]!.toJS();
          object.spec.template.spec.containers.reverse();
          shop = `${JSON.stringify(object)}\n`;
        }
        const lines = (reorderDocuments ? `${shop}---\n${service}` : `${service}---\n${shop}`).split('\n');
        // Whole-line comments anywhere between lines: YAML (and the JSON line, which is YAML too) reads around them.
        for (const at of comments) lines.splice(at % (lines.length + 1), 0, '# unrelated');
        assert.deepEqual(keysOf(lines.join('\n')), reference);
      }),
      { numRuns: 40 },
    );
  });

  it('is the same for an object inside a List as for the object alone (the item index is left out)', () => {
    const repo = repository('list', { 'shop.yaml': SHOP });
    const items = parseAllDocuments(SHOP).map((document) => document.toJS());
    writeFileSync(join(work, 'list', 'list.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: items.reverse() }));
    const fingerprints = (file: string) =>
      lintJson(repo, [file, '--no-fail-if-no-objects'])
        .findings.map((finding) => finding.fingerprint)
        .sort();
    assert.deepEqual(fingerprints('list.json'), fingerprints('shop.yaml'));
  });
});
