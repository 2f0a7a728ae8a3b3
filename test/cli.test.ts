// The built CLI as a process: inputs, formats, exit codes, configuration, errors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { RULES } from '../rules/index.js';
import { podYaml, ROOT, runCli } from './helpers.js';

const clean = podYaml('livenessProbe:\n  httpGet:\n    path: /livez\n    port: 80\nreadinessProbe:\n  httpGet:\n    path: /readyz\n    port: 80');
const warning = podYaml('livenessProbe:\n  tcpSocket:\n    port: 80\n  timeoutSeconds: 10\nreadinessProbe:\n  httpGet:\n    port: 80');
const error = podYaml('livenessProbe:\n  tcpSocket:\n    port: 80\n  successThreshold: 2\nreadinessProbe:\n  httpGet:\n    port: 81');
const infoOnly = podYaml('readinessProbe:\n  httpGet:\n    port: 80');

let work: string;
function write(relative: string, text: string): string {
  const path = join(work, relative);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

before(() => {
  work = mkdtempSync(join(tmpdir(), 'probe-lint-cli-'));
});

describe('inputs', () => {
  it('walks directories recursively for .yaml, .yml and .json, and skips other files', () => {
    write('tree/a.yaml', warning);
    write('tree/deeper/b.yml', warning);
    write('tree/deeper/c.json', JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'j' }, spec: { containers: [{ name: 'c', image: 'i' }] } }));
    write('tree/notes.txt', 'not: [yaml');
    write('tree/node_modules/x.yaml', warning);
    const run = runCli([join(work, 'tree'), '--format', 'json', '--fail-on', 'never']);
    assert.equal(run.code, 0, run.stderr);
    const output = JSON.parse(run.stdout);
    assert.equal(output.summary.files, 3);
    assert.deepEqual([...new Set(output.findings.map((finding: { file: string }) => finding.file.slice(work.length + 1)))].sort(), [
      'tree/a.yaml',
      'tree/deeper/b.yml',
      'tree/deeper/c.json',
    ]);
  });

  it("lints a directory's files together, however the walk orders them, and lists objects in input order", () => {
    // The walk reads units/a.yaml, units/b/pod.yaml, units/c.yaml: the Service in a.yaml still selects c.yaml's pod.
    write('units/a.yaml', 'apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n');
    write('units/b/pod.yaml', podYaml('livenessProbe: {tcpSocket: {port: 80}}').replace('name: p', 'name: elsewhere\n  labels: {app: web}'));
    write('units/c.yaml', podYaml('livenessProbe: {tcpSocket: {port: 80}}').replace('name: p', 'name: served\n  labels: {app: web}'));
    const run = runCli([join(work, 'units'), '--format', 'json', '--fail-on', 'never']);
    const readiness = (JSON.parse(run.stdout) as { findings: { rule: string; messageId: string; file: string }[] }).findings
      .filter((finding) => finding.rule === 'missing-readiness-probe')
      .map((finding) => `${finding.file.slice(work.length + 1)} ${finding.messageId}`);
    assert.deepEqual(readiness, ['units/b/pod.yaml missing', 'units/c.yaml selected']);
    const junit = runCli([join(work, 'units'), '--format', 'junit', '--fail-on', 'never']).stdout;
    assert.ok(junit.indexOf('units/b/pod.yaml') < junit.indexOf('units/c.yaml'), junit);
  });

  it('reads "-" from stdin', () => {
    const run = runCli(['-', '--format', 'json'], { input: error });
    assert.equal(run.code, 1);
    const [finding] = JSON.parse(run.stdout).findings;
    assert.equal(finding.file, '-');
    assert.equal(finding.rule, 'success-threshold-not-one');
    assert.deepEqual([finding.line, finding.column], [13, 9]);
  });

  it('reports invalid YAML as file:line:column with exit 2, and still lints every other file', () => {
    const broken = write('mixed/broken.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: [oops\n');
    write('mixed/good.yaml', warning);
    const run = runCli([join(work, 'mixed')]);
    assert.equal(run.code, 2);
    assert.match(run.stdout, new RegExp(`${broken.replace(/[.]/g, '\\.')}:\\d+:\\d+  error    input\\s+invalid YAML: `));
    assert.match(run.stdout, /good\.yaml:13:9 {2}warning {2}timeout-not-below-period/);
  });

  it('reads a file named on the command line as it reads stdin: invalid YAML that names no kind is an input error there, passed over in a directory walk or with --only-manifests', () => {
    // A CloudFormation template: no kind, and a tag YAML without its schema does not know.
    const template = 'Resources:\n  Bucket:\n    Type: AWS::S3::Bucket\n    Properties:\n      BucketName: !Ref Name\n';
    const named = write('not-manifests/template.yaml', template);
    const inputErrors = (run: { stdout: string }) =>
      (JSON.parse(run.stdout).inputErrors as { file: string; line: number }[]).map((error) => [error.file, error.line]);
    const asNamed = runCli([named, '--format', 'json']);
    const onStdin = runCli(['-', '--format', 'json'], { input: template });
    assert.deepEqual([asNamed.code, inputErrors(asNamed)], [2, [[named, 5]]]);
    assert.deepEqual([onStdin.code, inputErrors(onStdin)], [2, [['-', 5]]], 'the same bytes, the same answer');
    const walked = runCli([join(work, 'not-manifests'), '--format', 'json']);
    assert.deepEqual([walked.code, inputErrors(walked)], [0, []], 'found in a directory, it is not a manifest');
    const listed = runCli(['--only-manifests', '--format', 'json', '--', named]);
    assert.deepEqual([listed.code, inputErrors(listed)], [0, []], 'named in a list a hook made, it is passed over as in a walk');
    // Invalid YAML that could hold an object is an error whichever way it comes.
    const broken = write('not-manifests/broken.yaml', 'kind: Pod\nmetadata: [oops\n');
    assert.equal(runCli(['--only-manifests', '--', broken]).code, 2);
  });

  it('exits 2 for a path that does not exist, naming it', () => {
    const run = runCli([join(work, 'nope.yaml'), '--format', 'json']);
    assert.equal(run.code, 2);
    assert.deepEqual(JSON.parse(run.stdout).inputErrors, [{ file: join(work, 'nope.yaml'), kind: 'read', message: 'cannot read: no such file or directory' }]);
  });
});

describe('exit codes and --fail-on', () => {
  const cases: [string, string, string[], number][] = [
    ['a clean file', clean, [], 0],
    ['a warning (default --fail-on warning)', warning, [], 1],
    ['a warning with --fail-on error', warning, ['--fail-on', 'error'], 0],
    ['an error with --fail-on error', error, ['--fail-on', 'error'], 1],
    ['info only (never fails by default)', infoOnly, [], 0],
    ['info only with --fail-on info', infoOnly, ['--fail-on', 'info'], 1],
    ['an error with --fail-on never', error, ['--fail-on', 'never'], 0],
  ];
  for (const [what, text, args, code] of cases) {
    it(`exits ${code} for ${what}`, () => {
      const run = runCli(['-', ...args], { input: text });
      assert.equal(run.code, code, run.stdout + run.stderr);
    });
  }

  it('exits 2 with the usage for a bad flag or value', () => {
    for (const args of [['--frmat', 'json', '-'], ['--format', 'xml', '-'], ['--fail-on', 'sometimes', '-'], ['--pods-per-node', 'many', '-'], []]) {
      const run = runCli(args);
      assert.equal(run.code, 2, args.join(' '));
      assert.match(run.stderr, /^probe-lint: .+\nRun `probe-lint --help` for the commands and options\.\n$/);
    }
  });
});

describe('formats', () => {
  it('text: grouped by file, file:line:column  severity  rule  message, and a summary', () => {
    const file = write('text/pod.yaml', warning);
    const run = runCli([file]);
    assert.equal(run.code, 1);
    const lines = run.stdout.trimEnd().split('\n');
    assert.equal(lines[0], file);
    assert.match(
      lines[1]!,
      new RegExp(`^  ${file.replace(/[.]/g, '\\.')}:13:9  warning  timeout-not-below-period  Pod/p, container "c": livenessProbe timeoutSeconds 10 s`),
    );
    assert.equal(lines.at(-1), '⚠ 1 problem (0 errors, 1 warning, 0 infos) in 1 file, 1 resource, 1 container');
    assert.doesNotMatch(run.stdout, /\x1b\[/, 'no colours when not a terminal');
    assert.match(runCli([file, '--color']).stdout, /\x1b\[33mwarning/);
  });

  it('json: one object with findings (1-based positions, resource, container, pointer) and a summary', () => {
    const run = runCli(['-', '--format', 'json'], {
      input: `${warning}---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  selector: {app: none}\n`,
    });
    const output = JSON.parse(run.stdout);
    assert.deepEqual(output.findings, [
      {
        rule: 'timeout-not-below-period',
        messageId: 'notBelow',
        severity: 'warning',
        message: output.findings[0].message,
        file: '-',
        line: 13,
        column: 9,
        resource: { apiVersion: 'v1', kind: 'Pod', name: 'p', namespace: null },
        container: 'c',
        pointer: '/spec/containers/0/livenessProbe/timeoutSeconds',
        fix: [{ op: 'add', path: '/spec/containers/0/livenessProbe/timeoutSeconds', value: 9 }],
        fingerprint: output.findings[0].fingerprint,
      },
    ]);
    assert.match(output.findings[0].fingerprint, /^[0-9a-f]{64}$/);
    assert.match(output.findings[0].message, /3 \(default\) × max\(period, timeout\) = 3 × 10 s = 30 s/);
    assert.deepEqual(output.summary, { files: 1, resources: 2, containers: 1, errors: 0, warnings: 1, infos: 0 });
  });

  it('github: workflow annotations with escaped properties', () => {
    const file = write('gh/pod,1.yaml', `${error}---\n${infoOnly}`);
    const run = runCli([file, '--format', 'github']);
    const lines = run.stdout.trimEnd().split('\n');
    const escaped = file.replace(/,/g, '%2C');
    assert.match(
      lines[0]!,
      new RegExp(
        `^::error file=${escaped.replace(/[.]/g, '\\.')},line=13,col=9,title=probe-lint%3A success-threshold-not-one::Pod/p, container "c": livenessProbe\\.successThreshold is 2`,
      ),
    );
    assert.match(lines[1]!, /^::notice file=.*,line=\d+,col=7,title=probe-lint%3A missing-liveness-probe::/);
    assert.equal(lines.length, 3);
  });

  describe('sarif', () => {
    const multitool = join(ROOT, 'tools/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool');

    it("is valid SARIF 2.1.0 by Microsoft's validator, with no error and no warning", () => {
      chmodSync(multitool, 0o755); // npm may skip the package's postinstall that sets it
      const outside = write('sarif/outside.yaml', error);
      write('sarif/broken.yaml', 'kind: [\n');
      const run = runCli(['examples', outside, join(work, 'sarif/broken.yaml'), '-', '--format', 'sarif'], { input: warning });
      assert.equal(run.code, 2);
      const log = JSON.parse(run.stdout);
      const sarifFile = join(work, 'out.sarif');
      writeFileSync(sarifFile, run.stdout);
      const validation = spawnSync(multitool, ['validate', sarifFile, '--output', join(work, 'validation.sarif'), '--log', 'ForceOverwrite'], {
        encoding: 'utf8',
      });
      assert.equal(validation.status, 0, validation.stdout + validation.stderr);
      const report = JSON.parse(readFileSync(join(work, 'validation.sarif'), 'utf8'));
      const problems = report.runs[0].results.filter(
        (result: { level?: string }) => result.level === 'error' || result.level === 'warning' || result.level === undefined,
      );
      assert.deepEqual(problems, []);

      const [sarifRun] = log.runs;
      assert.equal(log.version, '2.1.0');
      assert.deepEqual(
        sarifRun.tool.driver.rules.map((rule: { id: string }) => rule.id),
        RULES.map((rule) => rule.meta.id),
      );
      assert.ok(sarifRun.tool.driver.rules.every((rule: { help: { markdown: string } }) => rule.help.markdown.startsWith('# ')));
      const example = sarifRun.results.find((result: { ruleId: string }) => result.ruleId === 'readiness-termination-grace-period');
      assert.deepEqual(example.locations[0].physicalLocation, {
        artifactLocation: { uri: 'examples/shop.yaml', uriBaseId: 'SRCROOT' },
        region: { startLine: 45, startColumn: 13 },
      });
      assert.equal(sarifRun.invocations[0].toolExecutionNotifications.length, 1);
    });
  });
});

describe('configuration', () => {
  it('finds .probe-lint.yaml in a parent directory of the work tree and applies it; outside a work tree, only the working directory', () => {
    write('project/.probe-lint.yaml', 'rules:\n  timeout-not-below-period: "off"\n');
    write('project/deploy/pod.yaml', warning);
    const run = runCli(['deploy'], { cwd: join(work, 'project') });
    assert.equal(run.code, 0, run.stdout);
    assert.match(run.stdout, /no problems in 1 file/);
    assert.equal(runCli(['pod.yaml'], { cwd: join(work, 'project/deploy') }).code, 1, 'no work tree: the parent directory is not searched');
    mkdirSync(join(work, 'project/.git'));
    const subdirectory = runCli(['pod.yaml'], { cwd: join(work, 'project/deploy') });
    assert.equal(subdirectory.code, 0, subdirectory.stdout);
  });

  it('refuses a bad config with exit 2 and a message naming file, line and key', () => {
    const config = write('bad-config/.probe-lint.yaml', 'rules:\n  timeout-not-below-period: loud\n');
    const run = runCli(['-', '--config', config], { input: clean });
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.match(
      run.stderr,
      new RegExp(`${config.replace(/[.]/g, '\\.')}:2:29: rules\\.timeout-not-below-period: must be one of "off", "error", "warning", "info"`),
    );
  });

  it('exits 2 when --config names a missing file', () => {
    const run = runCli(['-', '--config', join(work, 'missing.yaml')], { input: clean });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /missing\.yaml: cannot read the config file/);
  });

  it('--pods-per-node makes a frequent exec probe a warning on a dense cluster and silent on a sparse one', () => {
    const exec = podYaml('livenessProbe:\n  exec:\n    command: [x]\n  periodSeconds: 2\nreadinessProbe:\n  httpGet:\n    port: 80');
    const severities = (args: string[]) =>
      JSON.parse(runCli(['-', '--format', 'json', ...args], { input: exec }).stdout).findings.map(
        (finding: { rule: string; severity: string }) => `${finding.rule}:${finding.severity}`,
      );
    assert.deepEqual(severities([]), ['exec-probe-dense-cluster:info']);
    assert.deepEqual(severities(['--pods-per-node', '80']), ['exec-probe-dense-cluster:warning']);
    assert.deepEqual(severities(['--pods-per-node', '10']), []);
  });

  it('--show-suppressed lists suppressed findings with the reason; --strict brings them back', () => {
    const suppressed = warning.replace(
      '  name: p\n',
      '  name: p\n  annotations:\n    probe-lint.dev/ignore: "timeout-not-below-period # vendor image, slow /health"\n',
    );
    const quiet = runCli(['-'], { input: suppressed });
    assert.equal(quiet.code, 0);
    assert.match(quiet.stdout, /no problems in 1 file, 1 resource, 1 container; 1 suppressed/);
    const shown = runCli(['-', '--show-suppressed'], { input: suppressed });
    assert.match(shown.stdout, /timeout-not-below-period .*\[suppressed by annotation: probe-lint\.dev\/ignore: vendor image, slow \/health\]/);
    assert.equal(runCli(['-', '--strict'], { input: suppressed }).code, 1);
  });
});

describe('rules and explain', () => {
  it('lists every rule with severity and summary', () => {
    const run = runCli(['rules']);
    assert.equal(run.code, 0);
    const lines = run.stdout.trimEnd().split('\n');
    assert.deepEqual(
      lines.map((line) => line.split(/\s+/)[0]),
      RULES.map((rule) => rule.meta.id),
    );
    assert.match(run.stdout, /timeout-not-below-period\s+warning\s+suggestion\s+a probe whose effective timeoutSeconds/);
    assert.match(run.stdout, /exec-probe-dense-cluster\s+info\s+an exec probe .*\(warning when the cluster is known to be dense/);
    const severities = RULES.map((rule) => rule.meta.severity);
    assert.deepEqual(
      severities,
      [...severities].sort((a, b) => ['error', 'warning', 'info'].indexOf(a) - ['error', 'warning', 'info'].indexOf(b)),
      'errors first, then warnings, then infos',
    );
  });

  it('explains a rule from its README, and rejects an unknown one', () => {
    const run = runCli(['explain', 'probe-port-not-declared']);
    assert.equal(run.code, 0);
    assert.equal(run.stdout, readFileSync(join(ROOT, 'rules/probe-port-not-declared/README.md'), 'utf8'));
    const unknown = runCli(['explain', 'no-such-rule']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown rule "no-such-rule"/);
  });

  it('prints the version', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    assert.equal(runCli(['--version']).stdout, `${version}\n`);
  });
});
