// The ways in: the npm package (packed and installed for real), the container image's Dockerfile,
// and the pre-commit hook (run with Debian's pre-commit when it is installed).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { podYaml, ROOT } from './helpers.js';
import { helmBinary, kubectlBinary, TOOLS } from './tools.js';
import { startServe } from './serve-process.js';
import { makeTestPki } from './tls.js';
import { httpsRequest } from './webhook-client.js';

const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
const BAD = podYaml('livenessProbe:\n  tcpSocket:\n    port: 80\n  successThreshold: 3\nreadinessProbe:\n  tcpSocket:\n    port: 81');
const GOOD = podYaml('livenessProbe:\n  tcpSocket:\n    port: 80\nreadinessProbe:\n  httpGet:\n    port: 81');

describe('npm package', () => {
  let installed: string;
  let tarball: string;
  before(() => {
    const work = mkdtempSync(join(tmpdir(), 'probe-lint-pack-'));
    // dist/ is already built by `npm test`; packing must not rebuild it under the running suite.
    const name = execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work, '--silent'], { cwd: ROOT, encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop()!;
    tarball = join(work, name);
    installed = join(work, 'app');
    mkdirSync(installed);
    writeFileSync(join(installed, 'package.json'), '{"name":"consumer","private":true}');
    execFileSync('npm', ['install', tarball, '--omit=dev', '--no-audit', '--no-fund', '--silent'], { cwd: installed, stdio: 'pipe' });
  });

  it('ships only what runs: compiled code, rule docs and the config schema', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((file) => file.replace(/^package\//, ''));
    for (const file of files) {
      assert.match(file, /^(dist\/(src|rules)\/.+\.js|rules\/[a-z-]+\/README\.md|schema\/config\.schema\.json|package\.json|README\.md|LICENSE)$/, file);
    }
    assert.ok(files.includes('dist/src/cli/bin.js'));
    assert.ok(files.includes('rules/timeout-not-below-period/README.md'));
  });

  it('installs a working probe-lint command with production dependencies only', () => {
    const bin = join(installed, 'node_modules/.bin/probe-lint');
    assert.equal(execFileSync(bin, ['--version'], { encoding: 'utf8' }), `${VERSION}\n`);
    writeFileSync(join(installed, 'bad.yaml'), BAD);
    const run = spawnSync(bin, ['bad.yaml', '--format', 'json'], { cwd: installed, encoding: 'utf8' });
    assert.equal(run.status, 1);
    assert.equal(JSON.parse(run.stdout).findings[0].rule, 'success-threshold-not-one');
    assert.match(execFileSync(bin, ['explain', 'grpc-named-port'], { encoding: 'utf8' }), /^# grpc-named-port\n/);
    assert.ok(!existsSync(join(installed, 'node_modules/typescript')), 'no dev dependency is installed');
  });

  it("starts the webhook from the production install (the image's entrypoint)", async () => {
    const pki = makeTestPki();
    const cert = pki.issue('packaged');
    const entrypoint = join(installed, 'node_modules/probe-lint/dist/src/cli/bin.js');
    const { child, port, exited } = await startServe(['--host', '127.0.0.1', '--tls-cert', cert.cert, '--tls-key', cert.key], { cli: entrypoint });
    try {
      let status = 0;
      for (let attempt = 0; attempt < 100 && status !== 200; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        status = await httpsRequest(port, '/readyz', { ca: pki.caCert }).then(
          (reply) => reply.status,
          () => 0,
        );
      }
      assert.equal(status, 200);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const stages = dockerfile.split('\n').filter((line) => line.startsWith('FROM '));

  it('builds in one stage and runs production dependencies only on the newest Node LTS (the base a build argument)', () => {
    assert.equal(stages.length, 2);
    assert.match(dockerfile, /^ARG NODE_IMAGE=node:24-alpine$/m);
    assert.deepEqual(stages, ['FROM ${NODE_IMAGE} AS build', 'FROM ${NODE_IMAGE} AS runtime']);
    const runtime = dockerfile.slice(dockerfile.indexOf(stages[1]!));
    assert.match(runtime, /npm ci --omit=dev/);
    assert.doesNotMatch(runtime, /COPY \. /);
  });

  it('runs as a numeric non-root user, with the CLI as entrypoint and serve as the default command', () => {
    const user = /^USER (\d+):(\d+)$/m.exec(dockerfile);
    assert.ok(user && Number(user[1]) > 0, 'USER must be a numeric non-root uid');
    const entrypoint = JSON.parse(/^ENTRYPOINT (.+)$/m.exec(dockerfile)![1]!) as string[];
    assert.equal(entrypoint[0], 'node');
    assert.ok(existsSync(join(ROOT, entrypoint[1]!.replace('/app/', ''))), `${entrypoint[1]} is in the built output`);
    assert.equal(JSON.parse(/^CMD (.+)$/m.exec(dockerfile)![1]!)[0], 'serve');
  });

  it('copies only paths that exist, and the chart runs the image as the same user', () => {
    for (const [, source] of dockerfile.matchAll(/^COPY (?!--from)(\S+)/gm)) assert.ok(existsSync(join(ROOT, source!)), source);
    const deployment = readFileSync(join(ROOT, 'charts/probe-lint/templates/deployment.yaml'), 'utf8');
    assert.match(deployment, /runAsUser: 10001/);
    assert.match(dockerfile, /^USER 10001:10001$/m);
  });
});

const preCommit = spawnSync('pre-commit', ['--version'], { encoding: 'utf8' });
describe('pre-commit hook', { skip: preCommit.status === 0 ? false : 'pre-commit is not installed (apt-get install pre-commit; .ci/run installs it)' }, () => {
  function repoWith(file: string, text: string): string {
    const repo = mkdtempSync(join(tmpdir(), 'probe-lint-precommit-'));
    execFileSync('git', ['init', '-q'], { cwd: repo });
    mkdirSync(join(repo, file, '..'), { recursive: true });
    writeFileSync(join(repo, file), text);
    execFileSync('git', ['add', file], { cwd: repo });
    return repo;
  }
  // pre-commit takes a node for its own (system) only when it lives outside the home directory; CI's
  // Node 22 comes from the npm registry into ~/.cache, so the hook runs with a home of its own, as on
  // a machine whose Node is installed system-wide (pre-commit would download one otherwise).
  const hookEnv = (extra: Record<string, string> = {}) => ({
    ...process.env,
    HOME: mkdtempSync(join(tmpdir(), 'probe-lint-precommit-home-')),
    PRE_COMMIT_HOME: store,
    ...extra,
  });
  // The hook as users add it: a .pre-commit-config.yaml naming the repository and a commit. The
  // commit is this working tree's (changes included), made once in a copy, as `pre-commit try-repo`
  // makes one; unlike try-repo's throwaway store, one store serves every test, so the hook's npm
  // install (pack and install, half a minute) runs once per suite instead of once per test.
  let hookRepository: string;
  let hookRev: string;
  let store: string;
  before(() => {
    const work = mkdtempSync(join(tmpdir(), 'probe-lint-precommit-hook-'));
    store = join(work, 'store');
    hookRepository = join(work, 'probe-lint');
    execFileSync('git', ['clone', '-q', ROOT, hookRepository]);
    const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
    for (const file of git(ROOT, 'ls-files', '-z', '--deleted').split('\0').filter(Boolean)) rmSync(join(hookRepository, file), { force: true });
    for (const file of git(ROOT, 'ls-files', '-z', '--cached', '--others', '--exclude-standard').split('\0').filter(Boolean)) {
      if (!existsSync(join(ROOT, file))) continue;
      mkdirSync(dirname(join(hookRepository, file)), { recursive: true });
      cpSync(join(ROOT, file), join(hookRepository, file));
    }
    git(hookRepository, 'add', '-A');
    git(
      hookRepository,
      '-c',
      'user.name=probe-lint tests',
      '-c',
      'user.email=tests@probe-lint.invalid',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'the working tree',
    );
    hookRev = git(hookRepository, 'rev-parse', 'HEAD').trim();
  });
  const runHook = (repo: string, extra: Record<string, string> = {}, hookOptions = '', files: readonly string[] = []) => {
    writeFileSync(
      join(repo, '.pre-commit-config.yaml'),
      `repos:\n  - repo: ${JSON.stringify(hookRepository)}\n    rev: ${hookRev}\n    hooks:\n      - id: probe-lint\n${hookOptions}`,
    );
    execFileSync('git', ['add', '.pre-commit-config.yaml'], { cwd: repo });
    const which = files.length === 0 ? ['--all-files'] : ['--files', ...files];
    return spawnSync('pre-commit', ['run', ...which], { cwd: repo, encoding: 'utf8', env: hookEnv(extra) });
  };

  it('fails on a manifest with a probe error and names the rule', () => {
    const run = runHook(repoWith('deploy/pod.yaml', BAD));
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /success-threshold-not-one/);
  });

  it('passes on a good manifest', () => {
    const run = runHook(repoWith('pod.yaml', GOOD));
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /probe-lint \(Kubernetes probes\)\.+Passed/);
  });

  it('lints files named like options as files: a tracked `--kubeconfig=…` or `--config=…` changes nothing', () => {
    const repo = repoWith('deploy/pod.yaml', BAD);
    const marker = join(repo, '..', `${basename(repo)}-plugin-ran`);
    // The repository's own kubeconfig, whose credential plugin would run with the job's environment.
    writeFileSync(
      join(repo, 'kc.yaml'),
      'apiVersion: v1\nkind: Config\nclusters: [{name: x, cluster: {server: "https://127.0.0.1:9"}}]\n' +
        `users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: [-c, "touch ${marker}"], interactiveMode: Never}}}]\n` +
        'contexts: [{name: x, context: {cluster: x, user: u}}]\ncurrent-context: x\n',
    );
    // A config that would switch every rule off.
    writeFileSync(join(repo, 'evil.yaml'), 'rules:\n  success-threshold-not-one: off\n');
    for (const name of ['--kubeconfig=kc.yaml', '--config=evil.yaml', '--fail-on=never'])
      writeFileSync(join(repo, name), 'kind: Note\ntext: linted like any file\n');
    execFileSync('git', ['add', '--', 'kc.yaml', 'evil.yaml', '--kubeconfig=kc.yaml', '--config=evil.yaml', '--fail-on=never'], { cwd: repo });
    const run = runHook(repo);
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /success-threshold-not-one/, 'the planted config was not read');
    assert.equal(existsSync(marker), false, 'no kubeconfig was read, no plugin ran');
    // Options of the user's own still apply, before the `--` the hook's args end with.
    const own = runHook(repo, {}, '        args: [--disable, success-threshold-not-one, --]\n');
    assert.equal(own.status, 0, own.stdout + own.stderr);
  });

  it('works in a repository holding charts and kustomize overlays, with no exclude: tricks', () => {
    helmBinary();
    kubectlBinary();
    const repo = mkdtempSync(join(tmpdir(), 'probe-lint-precommit-repo-'));
    cpSync(join(ROOT, 'test/fixtures/repo'), repo, { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: repo });
    execFileSync('git', ['add', '.'], { cwd: repo });
    // helm and kubectl (for kustomize) on PATH, as on a developer's machine.
    const run = runHook(repo, { PATH: `${TOOLS}:${process.env.PATH}` });
    const output = run.stdout + run.stderr;
    assert.equal(run.status, 1, output);
    assert.doesNotMatch(output, /input|invalid YAML|looks like a Go template/, 'templates and patches are never parsed as plain manifests');
    assert.match(output, /charts\/shop\/templates\/statefulset\.yaml:22:11 {2}warning {2}liveness-mirrors-readiness/);
    assert.match(output, /kustomize\/overlays\/staging\/web-probe\.yaml:11:11 {2}warning {2}liveness-mirrors-readiness/);
    assert.match(output, /manifests\/queue\.yaml:17:13 {2}warning {2}timeout-not-below-period/);
  });

  it('given one staged file of a kustomization, reports the findings in that file only, and counts the rest', () => {
    const repo = mkdtempSync(join(tmpdir(), 'probe-lint-precommit-repo-'));
    cpSync(join(ROOT, 'test/fixtures/repo'), repo, { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: repo });
    execFileSync('git', ['add', '.'], { cwd: repo });
    const hook = (file: string) => {
      const run = runHook(repo, { PATH: `${TOOLS}:${process.env.PATH}` }, '', [file]);
      const output = run.stdout + run.stderr;
      assert.equal(run.status, 1, output);
      const places = [...output.matchAll(/^ *([^\s:]+):\d+:\d+ {2}(?:error|warning|info) /gm)].map((match) => match[1]);
      assert.deepEqual([...new Set(places)], [file], output);
      return output;
    };
    // The overlay's patch: the base's finding the overlay renders is counted, not shown.
    assert.match(hook('kustomize/overlays/staging/web-probe.yaml'), /; 1 in other files of what was rendered not shown/);
    hook('kustomize/base/deployment.yaml');
  });
});
