// Charts and kustomizations, rendered by the real helm and kubectl (kustomize), with findings mapped
// back to the files the user edits: exact files, lines and columns.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { ROOT, runCli, type JsonFinding } from './helpers.js';
import { helmBinary, kubectlBinary } from './tools.js';

const REPO = 'test/fixtures/repo';
const SHOP = `${REPO}/charts/shop`;

let tools: string[];
before(() => {
  tools = ['--helm', helmBinary(), '--kustomize', kubectlBinary()];
});

function lint(args: string[], options: { cwd?: string; input?: string; env?: Record<string, string> } = {}) {
  const run = runCli([...args, '--format', 'json', '--fail-on', 'never'], options);
  const output = JSON.parse(run.stdout) as {
    findings: JsonFinding[];
    inputErrors: { file: string; kind: string; message: string }[];
    summary: { resources: number };
    outsideInputs?: number;
  };
  return {
    run,
    output,
    places: output.findings
      .map((finding) => `${finding.file}:${finding.line}:${finding.column} ${finding.rule}${finding.rendered?.values ? ` [${finding.rendered.values}]` : ''}`)
      .sort(),
  };
}

describe('charts', () => {
  it('renders a chart given directly, and once more per ci/*-values.yaml, pointing at template lines', () => {
    const { run, output, places } = lint([SHOP, ...tools]);
    assert.deepEqual(output.inputErrors, [], run.stderr);
    assert.deepEqual(places, [
      `${SHOP}/templates/deployment.yaml:32:11 missing-liveness-probe [${SHOP}/ci/metrics-values.yaml]`,
      `${SHOP}/templates/deployment.yaml:34:11 probe-port-not-declared [${SHOP}/ci/metrics-values.yaml]`,
      `${SHOP}/templates/statefulset.yaml:22:11 liveness-mirrors-readiness`,
    ]);
    // Each line is the key the finding is about, in the template the user edits.
    const template = readFileSync(join(ROOT, SHOP, 'templates/deployment.yaml'), 'utf8').split('\n');
    assert.match(template[31]!, /^ {8}- name: exporter$/);
    assert.match(template[33]!, /^ {10}readinessProbe:$/);
  });

  it('gives the exact line and column in the rendered output too, and which values produced it', () => {
    const { output } = lint([SHOP, ...tools]);
    const port = output.findings.find((finding) => finding.rule === 'probe-port-not-declared')!;
    assert.equal(port.rendered?.from, 'helm');
    assert.equal(port.rendered?.root, SHOP);
    assert.equal(port.rendered?.values, `${SHOP}/ci/metrics-values.yaml`);
    const rendered = spawnSync(helmBinary(), ['template', 'release-name', SHOP, '--values', `${SHOP}/ci/metrics-values.yaml`], {
      cwd: ROOT,
      encoding: 'utf8',
    }).stdout.split('\n');
    const line = rendered[port.rendered.line - 1]!;
    assert.equal(line.slice(port.rendered.column - 1), 'port: metrics');
  });

  it('applies --values and --set to the chart given', () => {
    const { places } = lint([SHOP, ...tools, '--set', 'metrics.enabled=true', '--set', 'db.enabled=false']);
    assert.deepEqual(places, [
      `${SHOP}/templates/deployment.yaml:32:11 missing-liveness-probe`,
      `${SHOP}/templates/deployment.yaml:34:11 probe-port-not-declared`,
    ]);
  });

  it('renders the chart that owns a file passed alone (a pre-commit hook passes single files), and shows the findings in that file', () => {
    const template = `${SHOP}/templates/deployment.yaml`;
    const alone = lint([template, ...tools]);
    const whole = lint([SHOP, ...tools]);
    const inTemplate = whole.places.filter((place) => place.startsWith(`${template}:`));
    assert.ok(inTemplate.length > 0 && inTemplate.length < whole.places.length);
    assert.deepEqual(alone.places, inTemplate);
    assert.equal(alone.output.outsideInputs, whole.places.length - inTemplate.length, 'the rest of the chart’s findings are counted apart');
    // A values file (or Chart.yaml) is the whole chart's: every finding may come from it.
    assert.deepEqual(lint([`${SHOP}/values.yaml`, `${SHOP}/templates/service.yaml`, ...tools]).places, whole.places, 'the chart is rendered once');
  });

  it('renders vendored dependencies and points into their templates', () => {
    const { places } = lint([`${REPO}/charts/gateway`, ...tools]);
    assert.deepEqual(places, [
      `${REPO}/charts/gateway/charts/cache/templates/statefulset.yaml:17:13 exec-probe-dense-cluster`,
      `${REPO}/charts/gateway/charts/cache/templates/statefulset.yaml:20:13 timeout-not-below-period`,
    ]);
  });

  it('reports a missing dependency and a template outside a chart as input errors that say what to do', () => {
    const run = runCli(['test/fixtures/broken-charts', ...tools]);
    assert.equal(run.code, 2);
    assert.match(
      run.stdout,
      /missing-dep\/Chart\.yaml {2}error {4}input\s+the chart's dependencies are not in test\/fixtures\/broken-charts\/missing-dep\/charts: postgresql 15\.0\.0 from https:\/\/charts\.example\.com; run `helm dependency build test\/fixtures\/broken-charts\/missing-dep` \(it needs the network\) to fetch them/,
    );
    assert.match(run.stdout, /stray-template\.yaml {2}error {4}input\s+looks like a Go template \(\{\{ … \}\}\), not YAML: lint the chart it belongs to/);
    assert.match(run.stdout.trimEnd().split('\n').at(-1)!, /^✖ 2 input errors; /);
  });

  it('names each input error by its cause, and config decides what one only the network could fix means', () => {
    const { output } = lint(['test/fixtures/broken-charts', ...tools]);
    assert.deepEqual(output.inputErrors.map((error) => `${error.file} ${error.kind}`).sort(), [
      'test/fixtures/broken-charts/missing-dep/Chart.yaml network',
      'test/fixtures/broken-charts/stray-template.yaml template',
    ]);
    const config = (network: string) => {
      const directory = mkdtempSync(join(tmpdir(), 'probe-lint-policy-'));
      writeFileSync(join(directory, '.probe-lint.yaml'), `inputErrors:\n  network: ${network}\n`);
      return join(directory, '.probe-lint.yaml');
    };
    const chart = 'test/fixtures/broken-charts/missing-dep';
    // A warning is shown as one and leaves the exit code to the findings.
    const warned = runCli([chart, ...tools, '--config', config('warning'), '--no-fail-if-no-objects']);
    assert.equal(warned.code, 0, warned.stdout + warned.stderr);
    assert.match(warned.stdout, /missing-dep\/Chart\.yaml {2}warning {2}input\s+the chart's dependencies are not in/);
    assert.match(warned.stdout.trimEnd().split('\n').at(-1)!, /^⚠ no problems in .*; 1 input error let pass by the config \(inputErrors\)$/);
    const sarif = JSON.parse(runCli([chart, ...tools, '--config', config('warning'), '--no-fail-if-no-objects', '--format', 'sarif']).stdout);
    assert.deepEqual(
      sarif.runs[0].invocations[0].toolExecutionNotifications.map(
        (note: { level: string; properties: { kind: string } }) => `${note.level} ${note.properties.kind}`,
      ),
      ['warning network'],
    );
    assert.equal(sarif.runs[0].invocations[0].executionSuccessful, true);
    // Ignored: not in the report, and stderr says how many were left out.
    const ignored = runCli([chart, ...tools, '--config', config('ignore'), '--no-fail-if-no-objects', '--format', 'json']);
    assert.equal(ignored.code, 0, ignored.stderr);
    assert.deepEqual(JSON.parse(ignored.stdout).inputErrors, []);
    assert.match(ignored.stderr, /1 input error that only the network could fix not shown \(config inputErrors\.network: ignore\)/);
    // Every other kind stays an error whatever the network setting.
    assert.equal(runCli(['test/fixtures/broken-charts', ...tools, '--config', config('ignore')]).code, 2);
  });
});

describe('kustomize', () => {
  it('builds overlays, not the base they build on, and points at the patch that introduced a mirror', () => {
    const { output, places } = lint([`${REPO}/kustomize`, ...tools]);
    assert.deepEqual(output.inputErrors, []);
    assert.deepEqual(places, [
      `${REPO}/kustomize/base/deployment.yaml:24:11 liveness-mirrors-readiness`,
      `${REPO}/kustomize/overlays/staging/web-probe.yaml:11:11 liveness-mirrors-readiness`,
    ]);
    // The staging overlay introduced a mirror for "web"; the prod overlay fixed the base's "worker".
    assert.deepEqual(output.findings.map((finding) => `${finding.container} ${finding.rendered?.root}`).sort(), [
      `web ${REPO}/kustomize/overlays/staging`,
      `worker ${REPO}/kustomize/overlays/staging`,
    ]);
  });

  it('lints a patch or base file passed alone through the kustomizations that own it, never as a whole object', () => {
    const patch = lint([`${REPO}/kustomize/overlays/staging/web-probe.yaml`, ...tools]);
    assert.deepEqual(patch.output.inputErrors, []);
    assert.ok(
      !patch.output.findings.some((finding) => ['probe-port-not-declared', 'probe-handler-count'].includes(finding.rule)),
      'no false errors from a partial object',
    );
    // Only what the patch itself sets: the base's finding of the same rendering is counted apart.
    assert.deepEqual(patch.places, [`${REPO}/kustomize/overlays/staging/web-probe.yaml:11:11 liveness-mirrors-readiness`]);
    assert.equal(patch.output.outsideInputs, 1);
    // Alone, a base file is linted through its own kustomization (the overlays elsewhere are not known).
    const base = lint([`${REPO}/kustomize/base/deployment.yaml`, ...tools]);
    assert.equal(base.output.summary.resources, 2, 'the base: a Deployment and a Service');
    assert.deepEqual(
      base.output.findings.map((finding) => `${finding.file}:${finding.line} ${finding.container} ${finding.rendered?.root}`),
      [`${REPO}/kustomize/base/deployment.yaml:24 worker ${REPO}/kustomize/base`],
    );
  });
});

describe('a repository holding charts, kustomizations and plain manifests', () => {
  it('lints all three without an input error, and exits on what it finds', () => {
    const run = runCli([REPO, ...tools]);
    assert.equal(run.code, 1, run.stdout);
    assert.doesNotMatch(run.stdout, /input/);
    assert.match(run.stdout, /manifests\/queue\.yaml:17:13 {2}warning {2}timeout-not-below-period/);
    assert.match(
      run.stdout,
      /overlays\/staging\/web-probe\.yaml:11:11 {2}warning {2}liveness-mirrors-readiness .*\(kustomize build test\/fixtures\/repo\/kustomize\/overlays\/staging, line \d+:\d+\)/,
    );
  });

  it('without helm or kubectl says what is missing and how to get it, once per chart or kustomization', () => {
    const run = runCli([REPO], { env: { PATH: '/nonexistent' } });
    assert.equal(run.code, 2);
    const charts = run.stdout.match(/cannot render the chart: helm is not on PATH \(install Helm .* or give --helm PATH; --no-render skips charts\)/g) ?? [];
    assert.equal(charts.length, 2);
    const kustomizations = run.stdout.match(/cannot build the kustomization: neither kubectl nor kustomize is on PATH/g) ?? [];
    assert.equal(kustomizations.length, 2);
  });

  it('--no-render skips charts and kustomizations with a notice each, never silently', () => {
    const run = runCli([REPO, '--no-render'], { env: { PATH: '/nonexistent' } });
    assert.equal(run.code, 1);
    assert.deepEqual(run.stderr.trimEnd().split('\n').sort(), [
      `probe-lint: skipped chart ${REPO}/charts/gateway (--no-render)`,
      `probe-lint: skipped chart ${REPO}/charts/shop (--no-render)`,
      `probe-lint: skipped kustomization ${REPO}/kustomize/overlays/prod (--no-render)`,
      `probe-lint: skipped kustomization ${REPO}/kustomize/overlays/staging (--no-render)`,
    ]);
    assert.match(run.stdout, /queue\.yaml:17:13/);
  });
});

/** The 1-based line of the livenessProbe key of the named container in helm's output. */
function livenessLineOf(rendered: string, container: string): number {
  const lines = rendered.split('\n');
  const start = lines.findIndex((line) => line.trim() === `- name: ${container}`);
  return lines.findIndex((line, index) => index > start && line.trim() === 'livenessProbe:') + 1;
}

describe('rendered streams on stdin', () => {
  it("points at the template named by helm's # Source: line, with the line in the template when it is here", () => {
    const rendered = spawnSync(helmBinary(), ['template', 'shop'], { cwd: join(ROOT, REPO, 'charts'), encoding: 'utf8' }).stdout;
    const { output } = lint(['-'], { cwd: join(ROOT, REPO, 'charts'), input: rendered });
    assert.deepEqual(
      output.findings.map(
        (finding) => `${finding.file}:${finding.line}:${finding.column} ${finding.rule} rendered ${finding.rendered?.line}:${finding.rendered?.column}`,
      ),
      [`shop/templates/statefulset.yaml:22:11 liveness-mirrors-readiness rendered ${livenessLineOf(rendered, 'postgres')}:11`],
    );
  });

  it('never writes a SARIF result without a location: the template, and always the object', () => {
    const rendered = spawnSync(helmBinary(), ['template', 'shop'], { cwd: join(ROOT, REPO, 'charts'), encoding: 'utf8' }).stdout;
    const sarif = JSON.parse(runCli(['-', '--format', 'sarif'], { cwd: join(ROOT, REPO, 'charts'), input: rendered }).stdout);
    const [result] = sarif.runs[0].results;
    assert.equal(result.locations[0].physicalLocation.artifactLocation.uri, 'shop/templates/statefulset.yaml');
    assert.deepEqual(result.locations[0].physicalLocation.region, { startLine: 22, startColumn: 11 });
    assert.equal(result.locations[0].logicalLocations[0].fullyQualifiedName, 'StatefulSet/release-name-shop-db');
    assert.equal(result.properties.rendered.from, 'helm');
    const plain = JSON.parse(
      runCli(['-', '--format', 'sarif'], { input: 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i}]\n' }).stdout,
    );
    for (const each of plain.runs[0].results) assert.ok(Array.isArray(each.locations) && each.locations.length === 1, 'a location even for stdin');
  });
});
