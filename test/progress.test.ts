// Progress on a terminal, and nowhere else: the real CLI run on a pseudo-terminal (util-linux's
// `script`), over charts rendered by a deliberately slow helm, and against an API server that answers
// slowly. What a person sees is replayed through a small terminal model: counts that change while the
// work goes, nothing left on screen at the end, the same report as with --no-progress; and through
// pipes, with CI=true, TERM=dumb or --no-progress, no progress bytes at all.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AUDITED_COLLECTIONS, FakeApiServer } from './fake-apiserver.js';
import { CLI, runCli } from './helpers.js';
import { makeTestPki } from './tls.js';
import { helmBinary } from './tools.js';
import { fitCells } from '../src/cli/progress-line.js';
import { eastAsianWidth } from 'get-east-asian-width';

/** Terminal cells of a text, as the test counts them: wide characters two, combining marks none. */
const cells = (text: string) => [...text].reduce((sum, character) => sum + (/\p{M}/u.test(character) ? 0 : eastAsianWidth(character.codePointAt(0)!)), 0);

const scriptAvailable = spawnSync('sh', ['-c', 'command -v script'], { stdio: 'ignore' }).status === 0;
const unavailable = scriptAvailable ? undefined : "util-linux's script is not installed (it gives the CLI a terminal)";

const quote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;

/**
 * Runs the CLI on a terminal `columns` wide (stdin, stdout and stderr all the terminal, unless
 * `shellSuffix` redirects stdout); what the terminal received, and the exit code.
 */
function onTerminal(args: string[], options: { cwd: string; env?: Record<string, string>; columns?: number; shellSuffix?: string }) {
  const command = `stty cols ${options.columns ?? 80}; ${[process.execPath, CLI, ...args].map(quote).join(' ')}${options.shellSuffix ?? ''}`;
  // The test runner may itself run in CI: the terminal's session is not.
  const { CI: _ci, ...outside } = process.env;
  const run = spawnSync('script', ['-q', '-e', '-c', command, '/dev/null'], {
    cwd: options.cwd,
    encoding: 'utf8',
    env: { ...outside, TERM: 'xterm', PROBE_LINT_NO_RENDER_CACHE: '1', ...options.env },
    timeout: 120_000,
  });
  return { output: run.stdout, code: run.status };
}

/** The same, without blocking: for a server in this process that must answer meanwhile. */
function onTerminalAsync(args: string[], options: { cwd: string }): Promise<{ output: string; code: number | null }> {
  const command = `stty cols 80; ${[process.execPath, CLI, ...args].map(quote).join(' ')}`;
  const { CI: _ci, ...outside } = process.env;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { cwd: options.cwd, env: { ...outside, TERM: 'xterm' } });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject).on('close', (code) => resolve({ output, code }));
  });
}

/** The screen after `output`: lines as a terminal shows them (carriage return, erase line, cursor to column 1, line feed). */
function screen(output: string): string[] {
  const lines: string[] = [''];
  let column = 0;
  for (let index = 0; index < output.length; index++) {
    const character = output[index]!;
    const escape = /^\u001b\[(\d*)([A-Za-z])/.exec(output.slice(index, index + 8));
    if (escape !== null) {
      if (escape[2] === 'K') lines[lines.length - 1] = '';
      else if (escape[2] === 'G') column = Math.max(0, Number(escape[1] || '1') - 1);
      else assert.fail(`an escape sequence the progress line should not need: ${JSON.stringify(escape[0])}`);
      index += escape[0].length - 1;
    } else if (character === '\r') column = 0;
    else if (character === '\n') {
      lines.push('');
      column = 0;
    } else {
      const line = lines[lines.length - 1]!;
      lines[lines.length - 1] = line.slice(0, column).padEnd(column) + character + line.slice(column + 1);
      column++;
    }
  }
  return lines.map((line) => line.trimEnd()).filter((line, index, all) => line !== '' || index < all.length - 1);
}

/** A tree of charts, and a helm that takes 0.6 s a rendering. */
function slowCharts(count: number): { directory: string; helm: string } {
  const directory = mkdtempSync(join(tmpdir(), 'probe-lint-progress-'));
  for (let index = 0; index < count; index++) {
    const chart = join(directory, 'charts', `app-${index}`);
    mkdirSync(join(chart, 'templates'), { recursive: true });
    writeFileSync(join(chart, 'Chart.yaml'), `apiVersion: v2\nname: app-${index}\nversion: 1.0.0\n`);
    writeFileSync(
      join(chart, 'templates/pod.yaml'),
      `apiVersion: v1\nkind: Pod\nmetadata: {name: app-${index}}\nspec: {containers: [{name: a, image: b, livenessProbe: {tcpSocket: {port: 80}, timeoutSeconds: 10}}]}\n`,
    );
  }
  const helm = join(directory, 'slow-helm');
  writeFileSync(helm, `#!/bin/sh\nsleep 0.6\nexec ${quote(helmBinary())} "$@"\n`, { mode: 0o755 });
  return { directory, helm };
}

const ONE_AT_A_TIME = { PROBE_LINT_RENDER_JOBS: '1' };

describe('progress', { skip: unavailable }, () => {
  it('counts the renderings on a terminal as they go, fits its width, and leaves the screen as --no-progress leaves it', () => {
    const { directory, helm } = slowCharts(4);
    const args = ['charts', '--helm', helm, '--format', 'compact', '--fail-on', 'never'];
    const shown = onTerminal(args, { cwd: directory, env: ONE_AT_A_TIME, columns: 50 });
    const quiet = onTerminal([...args, '--no-progress'], { cwd: directory, env: ONE_AT_A_TIME, columns: 50 });
    assert.equal(shown.code, 0, shown.output);
    const counts = [...shown.output.matchAll(/rendering (\d)\/4 charts/g)].map((match) => Number(match[1]));
    assert.ok(counts.length >= 2 && counts.at(-1)! > counts[0]!, `counts that change: ${counts.join(', ')}`);
    for (const drawn of shown.output.split(/\u001b\[2K\u001b\[1G/).slice(1, -1))
      assert.ok([...drawn].length <= 49, `wider than the terminal: ${JSON.stringify(drawn)}`);
    assert.doesNotMatch(quiet.output, /rendering|\u001b/);
    assert.deepEqual(screen(shown.output), screen(quiet.output), 'nothing of the progress is left on screen');
  });

  it('fits the width in terminal cells (wide characters take two, combining marks none), and draws nothing on a 1-column terminal', () => {
    assert.equal(fitCells('rendering 1/4 (名前名前名前)', 20), 'rendering 1/4 (名前…');
    assert.equal(fitCells('e\u0301e\u0301e\u0301', 3), 'e\u0301e\u0301e\u0301', 'a combining mark takes no cell');
    for (const width of [1, 2, 5, 19, 49]) assert.ok(cells(fitCells('渲染 1/4 (チャート名前-app-0)', width)) <= width, `${width}`);
    const { directory, helm } = slowCharts(2);
    const narrow = onTerminal(['charts', '--helm', helm, '--format', 'compact', '--fail-on', 'never'], { cwd: directory, env: ONE_AT_A_TIME, columns: 1 });
    assert.equal(narrow.code, 0, narrow.output);
    assert.doesNotMatch(narrow.output, /rendering/);
  });

  it('on Ctrl-C, erases the line before it exits, with 130 as a shell expects', async () => {
    const { directory, helm } = slowCharts(6);
    const command = `stty cols 80; ${[process.execPath, CLI, 'charts', '--helm', helm, '--fail-on', 'never'].map(quote).join(' ')} & echo "PID=$!"; wait $!; echo "EXIT=$?"`;
    const { CI: _ci, ...outside } = process.env;
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
      cwd: directory,
      env: { ...outside, TERM: 'xterm', PROBE_LINT_NO_RENDER_CACHE: '1', ...ONE_AT_A_TIME },
    });
    let output = '';
    let interrupted = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      // Interrupted once the line is drawn: whatever the machine's speed, the line is there to erase.
      const pid = /PID=(\d+)/.exec(output);
      if (!interrupted && pid !== null && /rendering \d\/6 charts/.test(output)) {
        interrupted = true;
        process.kill(Number(pid[1]), 'SIGINT');
      }
    });
    await new Promise((resolve) => child.on('close', resolve));
    assert.ok(interrupted, output);
    assert.match(output, /EXIT=130/);
    const shown = screen(output.replace(/PID=\d+\r?\n/, '').replace(/EXIT=130\r?\n?/, ''));
    assert.deepEqual(
      shown.filter((line) => /rendering/.test(line)),
      [],
      `the progress line is erased: ${JSON.stringify(shown)}`,
    );
  });

  it('leaves a report written to a file byte for byte as without progress, and still shows progress on the terminal', () => {
    const { directory, helm } = slowCharts(3);
    const args = ['charts', '--helm', helm, '--format', 'json', '--fail-on', 'never'];
    const shown = onTerminal(args, { cwd: directory, env: ONE_AT_A_TIME, shellSuffix: ' > report.json' });
    assert.match(shown.output, /rendering \d\/3 charts/);
    const withProgress = readFileSync(join(directory, 'report.json'), 'utf8');
    onTerminal([...args, '--no-progress'], { cwd: directory, env: ONE_AT_A_TIME, shellSuffix: ' > report.json' });
    assert.equal(withProgress, readFileSync(join(directory, 'report.json'), 'utf8'));
  });

  it('draws nothing through a pipe, with CI set, with TERM=dumb, with --no-progress, or for work under half a second', () => {
    const { directory, helm } = slowCharts(2);
    const args = ['charts', '--helm', helm, '--format', 'compact', '--fail-on', 'never'];
    const piped = runCli(args, { cwd: directory, env: ONE_AT_A_TIME });
    assert.doesNotMatch(piped.stderr, /rendering|\u001b/);
    for (const env of [{ CI: 'true' }, { TERM: 'dumb' }]) {
      const run = spawnSync('script', ['-q', '-e', '-c', [process.execPath, CLI, ...args].map(quote).join(' '), '/dev/null'], {
        cwd: directory,
        encoding: 'utf8',
        env: { ...process.env, TERM: 'xterm', PROBE_LINT_NO_RENDER_CACHE: '1', ...ONE_AT_A_TIME, ...env },
      });
      assert.doesNotMatch(run.stdout, /rendering|\u001b\[2K/, JSON.stringify(env));
    }
    assert.doesNotMatch(onTerminal([...args, '--no-progress'], { cwd: directory, env: ONE_AT_A_TIME }).output, /rendering|\u001b\[2K/);
    const small = onTerminal([join(directory, 'charts/app-0/templates/pod.yaml'), '--no-render', '--format', 'compact', '--fail-on', 'never'], {
      cwd: directory,
    });
    assert.doesNotMatch(small.output, /linting|\u001b\[2K/, 'a small file shows nothing');
  });

  it('shows timeline over charts the same way', () => {
    const { directory, helm } = slowCharts(3);
    const shown = onTerminal(['timeline', 'charts', '--helm', helm], { cwd: directory, env: ONE_AT_A_TIME });
    const quiet = onTerminal(['timeline', 'charts', '--helm', helm, '--no-progress'], { cwd: directory, env: ONE_AT_A_TIME });
    assert.match(shown.output, /rendering \d\/3 charts/);
    assert.deepEqual(screen(shown.output), screen(quiet.output));
  });

  describe('audit against an API server that answers slowly', () => {
    let api: FakeApiServer;
    let kubeconfig: string;
    before(async () => {
      api = new FakeApiServer(makeTestPki());
      await api.start();
      api.pageDelayMs = 150;
      for (const path of AUDITED_COLLECTIONS) api.collections.set(path, []);
      api.collections.set('/apis/apps/v1/deployments', [
        {
          metadata: { name: 'web', namespace: 'shop', uid: 'u1' },
          spec: { template: { spec: { containers: [{ name: 'app', image: 'app:1', livenessProbe: { tcpSocket: { port: 80 }, timeoutSeconds: 10 } }] } } },
        },
      ]);
      kubeconfig = api.kubeconfig(mkdtempSync(join(tmpdir(), 'probe-lint-progress-kube-')));
    });
    after(async () => api.stop());

    it('lists the kinds of workloads k/n on a terminal, and ends on a clean screen', async () => {
      const args = ['audit', '-A', '--kubeconfig', kubeconfig, '--no-evidence', '--pods-per-node', '30', '--format', 'compact', '--fail-on', 'never'];
      const cwd = tmpdir();
      const shown = await onTerminalAsync(args, { cwd });
      const quiet = await onTerminalAsync([...args, '--no-progress'], { cwd });
      assert.match(shown.output, /listing \d\/\d+ kinds of workloads/);
      assert.deepEqual(screen(shown.output), screen(quiet.output));
      assert.ok(screen(quiet.output).some((line) => line.includes('timeout-not-below-period')));
    });
  });
});
