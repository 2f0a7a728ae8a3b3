// Input built to hurt: files that are not files, alias bombs, huge streams and reports, and a
// --fix that must never write anywhere but the manifest, never lose a byte it did not mean to
// change, and never claim a fix it could not write.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { RULES } from '../rules/index.js';
import { unknownCluster } from '../src/engine/cluster-facts.js';
import { Engine } from '../src/engine/engine.js';
import { fixSourceText } from '../src/fix/fix-source.js';
import { writeFixedFile } from '../src/fix/write-fixes.js';
import { formatReport, REPORT_FORMATS } from '../src/report/formats.js';
import type { InputError, ReportInput } from '../src/report/located.js';
import { allDocuments, LintSession } from '../src/lint/index.js';
import type { InputFile } from '../src/source/read/inputs.js';
import { readInputs } from '../src/source/read-inputs.js';
import { lintText, podYaml, runCli } from './helpers.js';

/** A Pod whose readiness probe sets terminationGracePeriodSeconds: an error with a fix (remove it). */
const fixable = podYaml(
  'readinessProbe:\n  tcpSocket:\n    port: 80\n  terminationGracePeriodSeconds: 5\nlivenessProbe:\n  httpGet:\n    path: /livez\n    port: 80',
);
const withoutGrace = (text: string) => text.replace(/^ *terminationGracePeriodSeconds: 5\n/m, '');
const fixed = withoutGrace(fixable);

const scratch = () => mkdtempSync(join(tmpdir(), 'probe-lint-hostile-'));
const NO_RENDER = { helm: undefined, kustomize: undefined, values: [], set: [], enabled: false };

describe('--fix writes only the manifest', () => {
  it('writes through a symlinked manifest: the target changes, the link stays a link, the mode stays, no temporary file is left', () => {
    const directory = scratch();
    const target = join(directory, 'real.yaml');
    writeFileSync(target, fixable);
    chmodSync(target, 0o640);
    symlinkSync('real.yaml', join(directory, 'link.yaml'));
    const run = runCli(['--fix', join(directory, 'link.yaml')]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(readFileSync(target, 'utf8'), fixed);
    assert.ok(lstatSync(join(directory, 'link.yaml')).isSymbolicLink());
    assert.equal(readlinkSync(join(directory, 'link.yaml')), 'real.yaml');
    assert.equal(statSync(target).mode & 0o777, 0o640);
    assert.deepEqual(readdirSync(directory).sort(), ['link.yaml', 'real.yaml']);
  });

  it('never follows a link planted where a predictable temporary file would go', () => {
    const directory = scratch();
    const manifest = join(directory, 'app.yaml');
    const outside = join(directory, 'outside.txt');
    writeFileSync(manifest, fixable);
    writeFileSync(outside, 'keep me\n');
    chmodSync(outside, 0o600);
    // The names a pid-based scheme would pick, in this process, for this file.
    for (const name of [`.app.yaml.probe-lint-${process.pid}.tmp`, `.app.yaml.tmp`, `app.yaml.tmp`, `app.yaml~`]) symlinkSync(outside, join(directory, name));
    writeFixedFile(manifest, fixable, fixed);
    assert.equal(readFileSync(outside, 'utf8'), 'keep me\n');
    assert.equal(statSync(outside).mode & 0o777, 0o600);
    assert.equal(readFileSync(manifest, 'utf8'), fixed);
    assert.ok(!lstatSync(manifest).isSymbolicLink());
  });

  it('refuses a read-only file and a file that changed since it was read, and does not count them as fixed', () => {
    const directory = scratch();
    const readOnly = join(directory, 'ro.yaml');
    writeFileSync(readOnly, fixable);
    chmodSync(readOnly, 0o444);
    const run = runCli(['--fix', readOnly]);
    assert.equal(run.code, 2);
    assert.match(run.stdout + run.stderr, /ro\.yaml.*not fixed: cannot write the file: the file is read-only/);
    assert.match(run.stderr, /fixed 0 problems in 0 files/);
    assert.equal(readFileSync(readOnly, 'utf8'), fixable);

    const edited = join(directory, 'edited.yaml');
    writeFileSync(edited, fixable + '# saved by an editor meanwhile\n');
    assert.throws(() => writeFixedFile(edited, fixable, fixed), /the file changed while probe-lint was running/);
    assert.equal(readFileSync(edited, 'utf8'), fixable + '# saved by an editor meanwhile\n');
  });

  it('keeps a UTF-16 file UTF-16 (with its byte-order mark), and CRLF line ends', () => {
    const directory = scratch();
    const path = join(directory, 'wide.yaml');
    const crlf = fixable.replace(/\n/g, '\r\n');
    writeFileSync(path, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(crlf, 'utf16le')]));
    const run = runCli(['--fix', path]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const bytes = readFileSync(path);
    assert.deepEqual([...bytes.subarray(0, 2)], [0xff, 0xfe]);
    assert.equal(bytes.subarray(2).toString('utf16le'), fixed.replace(/\n/g, '\r\n'));
  });

  it('with "-", prints helm template output it was piped, fixed, rather than nothing', () => {
    const rendered = `---\n# Source: app/templates/pod.yaml\n${fixable}`;
    const run = runCli(['-', '--fix'], { input: rendered });
    assert.equal(run.stdout, withoutGrace(rendered));
    assert.match(run.stderr, /fixed 1 problem in 1 file/);
  });

  it('fixes a file full of YAML aliases without expanding them', () => {
    // 2^35 paths through the aliases: expanding them, or comparing them as trees, never ends.
    const anchors = ['    a0: &a0 {x: 1}', ...Array.from({ length: 35 }, (_, index) => `    a${index + 1}: &a${index + 1} {p: *a${index}, q: *a${index}}`)];
    const text = fixable.replace('  name: p\n', `  name: p\n  labels:\n${anchors.join('\n')}\n`);
    const session = new LintSession(new Engine(RULES, { config: {}, cluster: unknownCluster() }));
    const outcome = fixSourceText('bomb.yaml', text, session.findingsOfSource('bomb.yaml'), ['fix']);
    assert.equal(outcome.problem, undefined);
    assert.deepEqual(outcome.fixed, ['readiness-termination-grace-period']);
    assert.equal(outcome.text, withoutGrace(text));
  });
});

describe('what is not a manifest file is refused, not read', () => {
  it('refuses a FIFO named *.yaml instead of waiting on it, and a link to /dev/zero instead of reading it forever (skipped outside the tree, refused as a device inside it)', () => {
    const directory = scratch();
    execFileSync('mkfifo', [join(directory, 'pipe.yaml')]);
    symlinkSync('/dev/zero', join(directory, 'zero.yaml'));
    writeFileSync(join(directory, 'good.yaml'), fixed);
    const run = runCli([directory]);
    assert.equal(run.code, 2);
    assert.match(run.stdout, /pipe\.yaml.*cannot read: not a regular file \(a FIFO\)/);
    // A link out of the tree is not even opened; with the whole disk as the tree, the device is refused as one.
    assert.match(run.stderr, /skipped .*zero\.yaml: a symbolic link to \/dev\/zero, outside the tree being linted/);
    assert.match(run.stdout, /1 resource/, 'the good file is still linted');
    const rooted = runCli(['--root', '/', directory]);
    assert.equal(rooted.code, 2);
    assert.match(rooted.stdout, /zero\.yaml.*cannot read: not a regular file \(a device\)/);
  });

  it('names a file past the size bound found in a directory, without reading it, and lints the others', () => {
    const directory = scratch();
    // Sparse: 300 MiB on paper, nothing on disk; reading it would take seconds and the memory.
    writeFileSync(join(directory, 'huge.yaml'), '');
    truncateSync(join(directory, 'huge.yaml'), 300 * 1024 * 1024);
    writeFileSync(join(directory, 'good.yaml'), fixed);
    const run = runCli([directory, '--format', 'json']);
    assert.equal(run.code, 2);
    const output = JSON.parse(run.stdout) as { inputErrors: InputError[]; summary: { files: number; resources: number } };
    assert.deepEqual(output.inputErrors, [
      { file: join(directory, 'huge.yaml'), kind: 'read', message: 'cannot read: 300 MiB is larger than the 256 MiB probe-lint reads; split the file' },
    ]);
    assert.deepEqual([output.summary.files, output.summary.resources], [1, 1], 'the good file is still linted, and the large one not counted');
  });

  it('names the line of bytes that are not UTF-8, and reads UTF-16 with a byte-order mark', () => {
    const directory = scratch();
    writeFileSync(join(directory, 'latin1.yaml'), Buffer.concat([Buffer.from('a: 1\nb: caf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    writeFileSync(join(directory, 'wide.yaml'), Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(fixable, 'utf16le').swap16()]));
    const run = runCli([directory]);
    assert.match(run.stdout, /latin1\.yaml.*not valid UTF-8 text \(line 2\)/);
    assert.match(run.stdout, /wide\.yaml:\d+:\d+ +error +readiness-termination-grace-period/);
    assert.doesNotMatch(run.stdout, /null byte/);
  });

  it('--fix leaves a file that is not UTF-8 as it is, fixes the one beside it, and says why once', () => {
    const directory = scratch();
    // A comment in Latin-1 after the pod: the file would parse, but its text is not UTF-8.
    const latin1 = Buffer.concat([Buffer.from(`${fixable}# caf`), Buffer.from([0xe9]), Buffer.from('\n')]);
    writeFileSync(join(directory, 'latin1.yaml'), latin1);
    writeFileSync(join(directory, 'pod.yaml'), fixable);
    const run = runCli(['--fix', directory, '--format', 'json']);
    assert.equal(run.code, 2, run.stderr);
    assert.deepEqual(readFileSync(join(directory, 'latin1.yaml')), latin1, 'not rewritten');
    assert.equal(readFileSync(join(directory, 'pod.yaml'), 'utf8'), fixed);
    // With --fix the report goes to stderr, after the line that counts the fixes.
    assert.match(run.stderr, /^probe-lint: fixed 1 problem in 1 file\n/);
    const report = run.stderr.slice(run.stderr.indexOf('{'));
    const { inputErrors, summary } = JSON.parse(report) as { inputErrors: { file: string; message: string }[]; summary: { files: number } };
    assert.deepEqual(
      inputErrors.map((error) => error.message),
      [`not valid UTF-8 text (line ${fixable.split('\n').length}): YAML manifests must be UTF-8; convert the file (e.g. iconv -f latin1 -t utf-8)`],
    );
    assert.equal(summary.files, 1, 'the file that could not be read is not counted as linted');
  });
});

describe('files are read when their deployment unit comes', () => {
  it('reads a file found in a directory when its unit is parsed, again after it is let go, and says so when it changed in between', async () => {
    const directory = scratch();
    for (const unit of ['a', 'b']) {
      mkdirSync(join(directory, unit));
      writeFileSync(join(directory, unit, 'pod.yaml'), fixed);
    }
    const { files, problems } = await readInputs([directory], { readStdin: () => '', env: {}, render: NO_RENDER });
    assert.deepEqual(problems, []);
    const [first, second] = files as [InputFile, InputFile];
    // Checked when found, read when asked: what is on disk then is what is read.
    writeFileSync(join(directory, 'a', 'pod.yaml'), fixable);
    assert.equal(first.text, fixable);
    writeFileSync(join(directory, 'a', 'pod.yaml'), fixed);
    assert.equal(first.text, fixable, 'read once, until it is let go');
    first.release!();
    assert.equal(first.text, fixed, 'read again after release');

    rmSync(join(directory, 'b', 'pod.yaml'));
    const errors: InputError[] = [];
    const units = [...new LintSession(new Engine(RULES, { config: {}, cluster: unknownCluster() })).units({ files, inputErrors: errors, notices: [] }, true)];
    assert.deepEqual(
      units.map((unit) => allDocuments(unit).length),
      [1, 0],
      'the first unit is linted, the second has nothing left to lint',
    );
    assert.deepEqual(errors, [{ file: second.path, kind: 'read', message: 'cannot read: no such file or directory' }]);
  });
});

describe('size and shape do not crash', () => {
  it('lints a custom resource whose aliases share one subtree 2^39 ways in bounded work', () => {
    const lines = ['apiVersion: example.com/v1', 'kind: Thing', 'metadata: {name: t}', 'a0: &a0 {containers: [{name: c, image: x}]}'];
    for (let index = 1; index < 40; index++) lines.push(`a${index}: &a${index} [*a${index - 1}, *a${index - 1}]`);
    lines.push('spec: *a39');
    const run = runCli(['-'], { input: lines.join('\n') + '\n' });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /1 resource/);
  });

  // A hang guard, not a measure of speed (the run is killed after a minute): go-yaml's flow-? check
  // once tried a regular expression from every bracket to the line's end, 8 s for 300 KB of them.
  it('reads a line of a million brackets in a file with a ? elsewhere', () => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    question: "why?"\ndata:\n  brackets: [x${', []'.repeat(250_000)}]\n`;
    const run = runCli(['-', '--format', 'compact'], { input: text, killAfterMs: 60_000 });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /no problems in 1 file, 1 resource/);
  });

  it('reads a stream of 160,000 documents', () => {
    const text = Array.from({ length: 160_000 }, (_, index) => `---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c${index}}\n`).join('');
    const run = runCli(['-'], { input: text });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /160000 resources/);
  });

  it('prints 200,000 findings in every format', async () => {
    const { located } = lintText(podYaml('livenessProbe:\n  tcpSocket:\n    port: 80\n  timeoutSeconds: 10\nreadinessProbe:\n  tcpSocket:\n    port: 81'));
    assert.equal(located.length, 1);
    const findings = Array.from({ length: 200_000 }, () => located[0]!);
    const input: ReportInput = {
      findings,
      objects: () => [{ file: 'test.yaml', name: 'Pod/p' }],
      enabledRules: RULES.map((rule) => rule.meta.id),
      failOn: 'warning',
      suppressed: [],
      inputErrors: [],
      summary: { files: 1, resources: findings.length, containers: findings.length, errors: 0, warnings: findings.length, infos: 0 },
      hidden: 0,
      rules: RULES,
      showSuppressed: false,
      color: false,
      columns: undefined,
      toolVersion: '0.0.0',
      generatedAt: new Date(0),
    };
    for (const format of REPORT_FORMATS) {
      const output = await formatReport(format, input);
      assert.ok(output.split('timeout-not-below-period').length - 1 >= 200_000, format);
    }
  });

  it('reports mappings with toString and valueOf keys where strings belong as invalid fields, not as a crash', () => {
    const text = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: { toString: 1, valueOf: 1 }, namespace: { toString: 1 } },
      spec: {
        containers: [
          {
            name: { toString: 1 },
            image: 'x',
            ports: { toString: 1 },
            livenessProbe: { httpGet: { port: 'http', path: { toString: 1 }, httpHeaders: [{ name: { toString: 1 }, value: { valueOf: 1 } }] } },
            readinessProbe: { exec: { command: [{ toString: 1 }] } },
          },
        ],
      },
    });
    const run = runCli(['-', '--format', 'json'], { input: text });
    assert.equal(run.code, 1, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.ok(report.findings.length >= 4);
    assert.ok(report.findings.every((finding: { rule: string }) => finding.rule === 'probe-field-invalid'));
  });

  it('counts lines ended by a lone CR as lines', () => {
    const text = fixable.replace(/\n/g, '\r');
    const { located } = lintText(text);
    const lf = lintText(fixable).located;
    assert.deepEqual(
      located.map((finding) => [finding.rule, finding.line, finding.column]),
      lf.map((finding) => [finding.rule, finding.line, finding.column]),
    );
  });
});
