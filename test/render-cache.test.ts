// Renders kept between runs: an unchanged chart is not rendered again, a changed one is, and an
// entry that was tampered with, or a cache directory others may write into, is never trusted.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { podYaml, runCli } from './helpers.js';
import { helmBinary } from './tools.js';

describe('the render cache', () => {
  let root: string;
  let cacheHome: string;
  let helm: string;
  let calls: string;
  const lint = (extra: string[] = []) =>
    runCli(['chart', '--helm', helm, '--format', 'compact', ...extra], { cwd: root, env: { PROBE_LINT_NO_RENDER_CACHE: '0', XDG_CACHE_HOME: cacheHome } });
  const renders = () => readFileSync(calls, 'utf8').split('\n').filter(Boolean).length;

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'probe-lint-cache-'));
    mkdirSync(join(root, '.git'));
    mkdirSync(join(root, 'chart/templates'), { recursive: true });
    writeFileSync(join(root, 'chart/Chart.yaml'), 'apiVersion: v2\nname: app\nversion: 0.1.0\n');
    writeFileSync(join(root, 'chart/templates/pod.yaml'), podYaml('livenessProbe: {tcpSocket: {port: 80}, timeoutSeconds: 10}'));
    cacheHome = mkdtempSync(join(tmpdir(), 'probe-lint-cache-home-'));
    calls = join(root, 'calls');
    writeFileSync(calls, '');
    // The real helm, behind a wrapper that notes each time it runs.
    helm = join(root, 'counting-helm.sh');
    writeFileSync(helm, `#!/bin/sh\necho run >> ${JSON.stringify(calls)}\nexec ${JSON.stringify(helmBinary())} "$@"\n`, { mode: 0o755 });
  });

  it('renders an unchanged chart once, and gives the same findings from the cache', () => {
    const first = lint();
    assert.equal(first.code, 1);
    assert.equal(renders(), 1);
    const second = lint();
    assert.equal(renders(), 1, 'the second run used the cache');
    assert.equal(second.stdout, first.stdout);
    lint(['--no-render-cache']);
    assert.equal(renders(), 2, '--no-render-cache renders again');
  });

  it('renders again when a template changes', () => {
    const before = renders();
    writeFileSync(join(root, 'chart/templates/pod.yaml'), podYaml('livenessProbe: {tcpSocket: {port: 80}, timeoutSeconds: 20}'));
    const run = lint();
    assert.equal(renders(), before + 1);
    assert.match(run.stdout, /timeoutSeconds 20 s/);
  });

  it('never trusts an entry that does not carry its own key, and never a directory others may write into', () => {
    const directory = join(cacheHome, 'probe-lint/render');
    // Every entry gets another rendering's output under its key: refused, because the key inside differs.
    for (const entry of readdirSync(directory).filter((name) => name.endsWith('.json'))) {
      const planted = JSON.parse(readFileSync(join(directory, entry), 'utf8')) as { key: string; stdout: string };
      writeFileSync(
        join(directory, entry),
        JSON.stringify({ ...planted, key: 'f'.repeat(64), stdout: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: planted}\n' }),
      );
    }
    let before = renders();
    const run = lint();
    assert.equal(renders(), before + 1, 'the tampered entry was not used');
    assert.match(run.stdout, /timeoutSeconds 20 s/);
    chmodSync(directory, 0o777);
    before = renders();
    lint();
    assert.equal(renders(), before + 1, 'a world-writable cache is not read');
    chmodSync(directory, 0o700);
  });
});
