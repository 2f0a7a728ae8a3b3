// --changed-since REF: the findings of the change, not of the repository's history. Real git
// repositories: what differs from the merge base of REF and HEAD (committed, staged, unstaged,
// untracked) is in scope, a changed kustomize base is linted through every overlay that builds it,
// a chart's values file stands for the whole chart, and a revision that is not one stops the run.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { podYaml, ROOT, runCli, type JsonFinding } from './helpers.js';
import { helmBinary, kubectlBinary } from './tools.js';

const BAD = podYaml('livenessProbe: {httpGet: {path: /, port: 8080}, timeoutSeconds: 10}');

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' },
  });
}

/** A git repository on branch main with the files committed. */
function repository(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'probe-lint-changed-'));
  git(root, 'init', '-q', '-b', 'main');
  for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'history');
  return root;
}

interface Report {
  findings: JsonFinding[];
  changedSince?: { ref: string; base: string; files: number; outside: number };
}

function lint(root: string, args: string[]) {
  const run = runCli([...args, '--format', 'json'], { cwd: root });
  const report = run.stdout === '' ? undefined : (JSON.parse(run.stdout) as Report);
  return { run, report, files: [...new Set(report?.findings.map((finding) => finding.file))].sort() };
}

let tools: string[];
before(() => {
  tools = ['--helm', helmBinary(), '--kustomize', kubectlBinary()];
});

describe('--changed-since', () => {
  it('shows the findings of files changed, staged, unstaged or untracked; the rest is counted apart', () => {
    const root = repository({ 'old.yaml': BAD, 'edited.yaml': BAD, 'staged.yaml': BAD });
    writeFileSync(join(root, 'edited.yaml'), `# touched\n${BAD}`);
    writeFileSync(join(root, 'staged.yaml'), `# staged\n${BAD}`);
    git(root, 'add', 'staged.yaml');
    writeFileSync(join(root, 'new.yaml'), BAD);
    const { run, report, files } = lint(root, ['.', '--changed-since', 'HEAD']);
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(files, ['edited.yaml', 'new.yaml', 'staged.yaml']);
    const perFile = report!.findings.length / 3;
    assert.deepEqual(report!.changedSince, { ref: 'HEAD', base: git(root, 'rev-parse', 'HEAD').trim(), files: 3, outside: perFile });
    // The text report says what it left out, and why.
    const text = runCli(['.', '--changed-since', 'HEAD'], { cwd: root });
    assert.match(text.stdout, new RegExp(`; ${perFile} in files not changed since HEAD not shown`));
    // A change that touches no manifest shows nothing and passes.
    const clean = repository({ 'old.yaml': BAD });
    writeFileSync(join(clean, 'README.md'), 'docs\n');
    const none = lint(clean, ['.', '--changed-since', 'HEAD']);
    assert.equal(none.run.code, 0, none.run.stdout);
    assert.deepEqual(none.report!.findings, []);
  });

  it('compares with the merge base: what the base branch did since is not the change', () => {
    const root = repository({ 'a.yaml': BAD, 'b.yaml': BAD });
    git(root, 'checkout', '-q', '-b', 'feature');
    writeFileSync(join(root, 'b.yaml'), `# feature\n${BAD}`);
    git(root, 'commit', '-q', '-am', 'feature edits b');
    git(root, 'checkout', '-q', 'main');
    writeFileSync(join(root, 'a.yaml'), `# main moved on\n${BAD}`);
    git(root, 'commit', '-q', '-am', 'main edits a');
    git(root, 'checkout', '-q', 'feature');
    assert.deepEqual(lint(root, ['.', '--changed-since', 'main']).files, ['b.yaml']);
  });

  it('lints a changed kustomize base through every overlay that builds it, and a changed values file as its whole chart', () => {
    const root = mkdtempSync(join(tmpdir(), 'probe-lint-changed-'));
    cpSync(join(ROOT, 'test/fixtures/repo'), root, { recursive: true });
    git(root, 'init', '-q', '-b', 'main');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'history');
    const base = join(root, 'kustomize/base/deployment.yaml');
    writeFileSync(base, `# a comment is a change\n${readFileSync(base, 'utf8')}`);
    const changed = lint(root, ['kustomize', ...tools, '--changed-since', 'HEAD', '--fail-on', 'never']);
    assert.deepEqual(changed.files, ['kustomize/base/deployment.yaml'], changed.run.stderr);
    // Both overlays render the base: its finding is reported from each rendering that still has it.
    const everything = lint(root, ['kustomize', ...tools, '--fail-on', 'never']);
    const inBase = everything.report!.findings.filter((finding) => finding.file === 'kustomize/base/deployment.yaml');
    assert.deepEqual(changed.report!.findings, inBase);
    assert.equal(changed.report!.changedSince!.outside, everything.report!.findings.length - inBase.length);
    // A chart's values file changes what every template renders: the chart's findings are all the change's.
    git(root, 'checkout', '-q', '--', '.');
    const values = join(root, 'charts/shop/values.yaml');
    writeFileSync(values, `${readFileSync(values, 'utf8')}\n# retuned\n`);
    const chart = lint(root, ['charts', ...tools, '--changed-since', 'HEAD', '--fail-on', 'never']);
    const whole = lint(root, ['charts', ...tools, '--fail-on', 'never']);
    const ofShop = whole.report!.findings.filter((finding) => finding.file?.startsWith('charts/shop/'));
    assert.ok(ofShop.length > 0);
    assert.deepEqual(chart.report!.findings, ofShop);
  });

  it('refuses what is not a revision before reading anything, naming it; an option is never passed to git as one', () => {
    const root = repository({ 'a.yaml': BAD });
    for (const ref of ['--output=/tmp/probe-lint-owned', '-p', '']) {
      const { run } = lint(root, ['.', `--changed-since=${ref}`]);
      assert.equal(run.code, 2, ref);
      assert.match(run.stderr, /is not a git revision/);
    }
    const missing = lint(root, ['.', '--changed-since', 'no-such-branch']);
    assert.equal(missing.run.code, 2);
    assert.match(missing.run.stderr, /--changed-since no-such-branch: no such commit here/);
    const outside = mkdtempSync(join(tmpdir(), 'probe-lint-not-git-'));
    writeFileSync(join(outside, 'a.yaml'), BAD);
    const notGit = lint(outside, ['.', '--changed-since', 'HEAD']);
    assert.equal(notGit.run.code, 2);
    assert.match(notGit.run.stderr, /--changed-since needs a git work tree/);
    // A baseline of part of the findings would make the rest new later.
    const write = lint(root, ['.', '--changed-since', 'HEAD', '--write-baseline']);
    assert.equal(write.run.code, 2);
    assert.match(write.run.stderr, /use one or the other/);
  });
});
