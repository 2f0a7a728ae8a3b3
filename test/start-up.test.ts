// The CLI's start-up (rollup.config.mjs): the bundle takes Node's built-ins from the process rather
// than importing them as ES modules (which reads, and so loads, every lazy export: fs.promises and
// its streams), and a file write takes its random name from the Web Crypto global rather than
// node:crypto. A short lint (the pre-commit case) loads neither; and the bundle still runs on a
// Node 22 from before process.getBuiltinModule (22.0 to 22.2), by importing as before.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CLI, podYaml, runCli } from './helpers.js';

/** NODE_OPTIONS that load `code` before the CLI: a data URL, so the options hold no spaces. */
const preloading = (code: string): string => `--import=data:text/javascript;base64,${Buffer.from(code).toString('base64')}`;

/**
 * The built-in modules Node loaded in a lint of a file holding `manifest`, as process.moduleLoadList
 * names them. The report goes to a file.
 */
function builtinsLoaded(manifest: string): { loaded: string[]; stdout: string; code: number | null } {
  const directory = mkdtempSync(join(tmpdir(), 'probe-lint-start-up-'));
  try {
    const list = join(directory, 'loaded.json');
    const input = join(directory, 'pod.yaml');
    const output = join(directory, 'report.txt');
    writeFileSync(input, manifest);
    // node:fs from the process: an import would itself load what is looked for.
    const recorder = `process.on('exit', () => process.getBuiltinModule('node:fs').writeFileSync(${JSON.stringify(list)}, JSON.stringify(process.moduleLoadList)));`;
    const stdout = openSync(output, 'w');
    const run = spawnSync(process.execPath, [preloading(recorder), CLI, input, '--format', 'compact'], { stdio: ['ignore', stdout, 'pipe'], encoding: 'utf8' });
    closeSync(stdout);
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    return { loaded: JSON.parse(readFileSync(list, 'utf8')) as string[], stdout: readFileSync(output, 'utf8'), code: run.status };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

describe("the CLI's start-up", () => {
  it('lints a small file without loading node:crypto, fs.promises or node:net, which it does not use', () => {
    const { loaded, stdout, code } = builtinsLoaded(podYaml('livenessProbe: {httpGet: {path: /livez, port: 8080}}'));
    assert.equal(code, 0);
    assert.match(stdout, /\[missing-readiness-probe\]/, 'the lint ran and reported');
    assert.ok(loaded.includes('NativeModule internal/util/parse_args/parse_args'), 'the list names what the run loaded (the command line parser)');
    // node:net comes with a stderr stream on a pipe (as here) and with a host named in a probe: neither happens.
    for (const unused of ['NativeModule crypto', 'NativeModule internal/fs/promises', 'NativeModule net']) {
      assert.ok(!loaded.includes(unused), `${unused} was loaded by a lint that uses none of it`);
    }
  });

  it('loads node:net for a probe that names a host, and still finds it is loopback', () => {
    const { loaded, stdout } = builtinsLoaded(podYaml('livenessProbe: {httpGet: {host: "[::ffff:127.0.0.1]", path: /livez, port: 8080}}'));
    assert.ok(loaded.includes('NativeModule net'), 'the host was looked at');
    assert.match(stdout, /\[http-probe-host\]/);
    assert.match(stdout, /loopback/);
  });

  it('writes a long report whole to a pipe left non-blocking, which takes it only as fast as it is read', async () => {
    // stdout is written with write(2) until the pipe says EAGAIN (process-output.ts); the rest goes
    // through Node's stream, which waits for the reader. Making process.stdout on a pipe turns the
    // pipe non-blocking for every process that shares it: a preloaded module that touches it (an
    // agent in NODE_OPTIONS) does so here, and this test reads nothing for a while.
    const directory = mkdtempSync(join(tmpdir(), 'probe-lint-nonblocking-'));
    try {
      const manifests = join(directory, 'many.yaml');
      writeFileSync(
        manifests,
        Array.from({ length: 300 }, (_, index) =>
          podYaml('livenessProbe: {exec: {command: [check]}, periodSeconds: 3}').replace('name: p\n', `name: p-${index}\n`),
        ).join('---\n'),
      );
      const expected = runCli([manifests, '--format', 'json']);
      assert.ok(expected.stdout.length > 256 * 1024, 'the report is larger than a pipe holds');
      const child = spawn(process.execPath, [preloading('process.stdout;'), CLI, manifests, '--format', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise((resolve) => child.on('close', resolve));
      await new Promise((resolve) => setTimeout(resolve, 500));
      const chunks: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
      const code = await exited;
      assert.equal(stderr, '');
      assert.equal(code, expected.code);
      assert.equal(Buffer.concat(chunks).toString(), expected.stdout);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('runs where process.getBuiltinModule is missing (Node 22.0 to 22.2), with the same report', () => {
    const args = ['examples/', '--format', 'json'];
    const usual = runCli(args);
    const older = runCli(args, { env: { NODE_OPTIONS: preloading('delete process.getBuiltinModule;') } });
    assert.equal(older.stderr, usual.stderr);
    assert.equal(older.code, usual.code);
    assert.equal(older.stdout, usual.stdout);
    assert.ok(usual.stdout.includes('"rule": "probe-port-not-declared"'), 'the report has findings to compare');
  });
});
