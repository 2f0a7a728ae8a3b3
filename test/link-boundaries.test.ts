// The boundary for links, at every surface that reads or writes a path a repository can commit:
// report files (--report, the Action's SARIF, the component's reports), plain manifests, --fix.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, symlinkSync, unlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { writeFileAtomic, WriteRefused } from '../src/source/atomic-write.js';
import { readManifestFile } from '../src/source/read/inputs.js';
import { podYaml, runCli } from './helpers.js';

const warning = podYaml('livenessProbe:\n  tcpSocket:\n    port: 80\n  timeoutSeconds: 10\nreadinessProbe:\n  httpGet:\n    port: 80');
const FORMATS = ['sarif', 'gitlab', 'junit', 'json', 'markdown'] as const;

/** A checkout (a git work tree) beside a directory outside it that holds a file a link could reach. */
function checkout(): { repository: string; outside: string; secret: string } {
  const work = mkdtempSync(join(tmpdir(), 'probe-lint-links-'));
  const repository = join(work, 'repository');
  const outside = join(work, 'outside');
  mkdirSync(join(repository, 'manifests'), { recursive: true });
  mkdirSync(outside);
  const init = spawnSync('git', ['init', '-q', repository]);
  assert.equal(init.status, 0);
  writeFileSync(join(repository, 'manifests/app.yaml'), warning);
  const secret = join(outside, 'credentials');
  writeFileSync(secret, 'token: do-not-touch\n', { mode: 0o600 });
  return { repository, outside, secret };
}

describe('report paths are never written through a link', () => {
  for (const format of FORMATS) {
    it(`--report ${format}=FILE that a pull request committed as a link out of the tree: exit 2 naming it, the target untouched`, () => {
      const { repository, secret } = checkout();
      symlinkSync(secret, join(repository, 'report.out'));
      const run = runCli(['--report', `${format}=report.out`, '--', 'manifests'], { cwd: repository });
      assert.equal(run.code, 2, run.stderr);
      assert.match(
        run.stderr,
        new RegExp(`cannot write the ${format} report to report\\.out: it is a symbolic link, and a report is never written through one`),
      );
      assert.equal(readFileSync(secret, 'utf8'), 'token: do-not-touch\n');
      assert.equal(run.stdout, '', 'nothing is linted before the refusal');
    });
  }

  it('a link inside the tree is refused too (the link is the attack, not its target), and a dangling one', () => {
    const { repository } = checkout();
    writeFileSync(join(repository, 'real.sarif'), 'kept');
    symlinkSync('real.sarif', join(repository, 'probe-lint.sarif'));
    symlinkSync('missing/nowhere', join(repository, 'dangling.sarif'));
    for (const file of ['probe-lint.sarif', 'dangling.sarif']) {
      const run = runCli(['--report', `sarif=${file}`, '--', 'manifests'], { cwd: repository });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /symbolic link/);
      assert.ok(lstatSync(join(repository, file)).isSymbolicLink(), 'the link is left for the user to see');
    }
    assert.equal(readFileSync(join(repository, 'real.sarif'), 'utf8'), 'kept');
  });

  it('a report whose directory is a link out of the work tree is refused; one through a link that stays inside is written', () => {
    const { repository, outside } = checkout();
    symlinkSync(outside, join(repository, 'reports'));
    const out = runCli(['--report', 'sarif=reports/probe-lint.sarif', '--', 'manifests'], { cwd: repository });
    assert.equal(out.code, 2, out.stderr);
    assert.match(out.stderr, /its directory is a link out of the work tree/);
    assert.ok(!existsSync(join(outside, 'probe-lint.sarif')));
    mkdirSync(join(repository, 'build'));
    symlinkSync('build', join(repository, 'artefacts'));
    const inside = runCli(['--report', 'sarif=artefacts/probe-lint.sarif', '--fail-on', 'never', '--', 'manifests'], { cwd: repository });
    assert.equal(inside.code, 0, inside.stderr);
    assert.equal(JSON.parse(readFileSync(join(repository, 'build/probe-lint.sarif'), 'utf8')).version, '2.1.0');
  });

  it('a path the user names outside the work tree (a temporary directory) is written as named', () => {
    const { repository, outside } = checkout();
    const run = runCli(['--report', `json=${join(outside, 'report.json')}`, '--fail-on', 'never', '--', 'manifests'], { cwd: repository });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(readFileSync(join(outside, 'report.json'), 'utf8')).summary.files, 1);
  });

  it('a run that stops before reporting (exit 2) removes the committed report files, so no CI step uploads them as its own', () => {
    const { repository } = checkout();
    writeFileSync(join(repository, 'probe-lint.sarif'), '{"forged": true}');
    writeFileSync(join(repository, 'gl-code-quality-report.json'), '[]');
    writeFileSync(join(repository, 'bad.yaml'), 'rules: [');
    const run = runCli(['--config', 'bad.yaml', '--report', 'sarif=probe-lint.sarif', '--report', 'gitlab=gl-code-quality-report.json', '--', 'manifests'], {
      cwd: repository,
    });
    assert.equal(run.code, 2, run.stderr);
    assert.ok(!existsSync(join(repository, 'probe-lint.sarif')));
    assert.ok(!existsSync(join(repository, 'gl-code-quality-report.json')));
  });
});

describe('plain manifests are read through a link only inside the tree being linted', () => {
  it('skips a committed link out of the tree with a notice, neither reading it nor, with --fix, writing it; a link inside is linted', () => {
    const { repository, outside } = checkout();
    const foreign = join(outside, 'foreign.yaml');
    writeFileSync(foreign, podYaml('livenessProbe:\n  tcpSocket:\n    port: 80\n  timeoutSeconds: 10', '').replace('name: p', 'name: private-name'));
    symlinkSync(foreign, join(repository, 'manifests/linked.yaml'));
    symlinkSync('app.yaml', join(repository, 'manifests/alias.yaml'));
    const before = readFileSync(foreign, 'utf8');
    const run = runCli(['--format', 'json', '--fail-on', 'never', '--', 'manifests'], { cwd: repository });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /skipped manifests\/linked\.yaml: a symbolic link to .*foreign\.yaml, outside the tree being linted/);
    assert.ok(!run.stdout.includes('private-name'));
    const files = new Set((JSON.parse(run.stdout).findings as { file: string }[]).map((finding) => finding.file));
    assert.deepEqual([...files].sort(), ['manifests/alias.yaml', 'manifests/app.yaml']);
    const fix = runCli(['--fix', '--fail-on', 'never', '--', 'manifests/linked.yaml'], { cwd: repository });
    assert.equal(fix.code, 0, fix.stderr);
    assert.equal(readFileSync(foreign, 'utf8'), before);
  });
});

describe('--fix writes only the file it read', () => {
  it('refuses when the path was swapped for a link (to a file with the same bytes) after it was read', () => {
    const { repository, secret } = checkout();
    const path = join(repository, 'manifests/app.yaml');
    const read = readManifestFile(path);
    assert.ok('identity' in read);
    // The swap: the file moved away, a link to a copy of its bytes outside put in its place.
    writeFileSync(secret, read.text);
    renameSync(path, `${path}.moved`);
    symlinkSync(secret, path);
    assert.throws(
      () => writeFileAtomic(path, Buffer.from('fixed'), { expected: Buffer.from(read.text), identity: read.identity }),
      (error: unknown) => error instanceof WriteRefused && /no longer the one probe-lint read/.test(error.message),
    );
    assert.equal(readFileSync(secret, 'utf8'), read.text);
    unlinkSync(path);
    renameSync(`${path}.moved`, path);
    writeFileAtomic(path, Buffer.from('fixed'), { expected: Buffer.from(read.text), identity: read.identity });
    assert.equal(readFileSync(path, 'utf8'), 'fixed');
  });
});
