// V8's compiled code is kept between runs in the user's own cache directory, never in the shared
// temporary directory (Node's default), and never in a cache directory others may write into.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { podYaml, runCli } from './helpers.js';

const filesUnder = (directory: string): string[] =>
  existsSync(directory)
    ? readdirSync(directory, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name)
    : [];

describe('the compile cache', { skip: process.env.NODE_COMPILE_CACHE ? 'NODE_COMPILE_CACHE is set: Node uses the directory it names' : false }, () => {
  it("is written to the user's cache directory, not the shared temporary one, and not used when others may write into it", () => {
    const cacheHome = mkdtempSync(join(tmpdir(), 'probe-lint-compile-home-'));
    const sharedTemporary = mkdtempSync(join(tmpdir(), 'probe-lint-compile-tmp-'));
    const env = { XDG_CACHE_HOME: cacheHome, TMPDIR: sharedTemporary };
    const compiled = join(cacheHome, 'probe-lint/compile');
    try {
      const first = runCli(['-', '--format', 'compact'], { input: podYaml('livenessProbe: {tcpSocket: {port: 80}}'), env });
      assert.equal(first.code, 0, first.stderr);
      assert.ok(filesUnder(compiled).length > 0, 'compiled code was kept in ~/.cache/probe-lint/compile');
      assert.deepEqual(readdirSync(sharedTemporary), [], 'nothing was written to the shared temporary directory');

      rmSync(compiled, { recursive: true });
      mkdirSync(compiled);
      chmodSync(compiled, 0o777);
      const second = runCli(['-', '--format', 'compact'], { input: podYaml('livenessProbe: {tcpSocket: {port: 80}}'), env });
      assert.equal(second.code, 0, second.stderr);
      assert.deepEqual(filesUnder(compiled), [], 'a cache directory others may write into is neither read nor written');
      assert.deepEqual(readdirSync(sharedTemporary), []);
    } finally {
      rmSync(cacheHome, { recursive: true, force: true });
      rmSync(sharedTemporary, { recursive: true, force: true });
    }
  });
});
