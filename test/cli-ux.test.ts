// The CLI as people use it every day: pipes that close early, honest summaries, empty input,
// crashes, command grammar, typos, rule selection, colours, wrapping, config strictness.
import assert from 'node:assert/strict';
import { parseCommandLine } from '../src/cli/options.js';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { RULES } from '../rules/index.js';
import { main, type CommandIo } from '../src/cli/main.js';
import { CLI, podYaml, ROOT, runCli } from './helpers.js';

const warning = podYaml('livenessProbe:\n  tcpSocket:\n    port: 80\n  timeoutSeconds: 10\nreadinessProbe:\n  httpGet:\n    port: 80');
const infoOnly = podYaml('readinessProbe:\n  httpGet:\n    port: 80');

let work: string;
before(() => {
  work = mkdtempSync(join(tmpdir(), 'probe-lint-ux-'));
});

/** main() in this process, with its output captured. */
async function inProcess(argv: string[], io: Partial<CommandIo> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: () => '',
    isTty: false,
    env: {},
    cwd: ROOT,
    ...io,
  });
  return { code, stdout, stderr };
}

describe('pipes and exit codes', () => {
  it("ends quietly when the reader closes the pipe early, with the run's own exit code", async () => {
    for (const args of [['examples/'], ['rules']]) {
      const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      // Read one chunk, then close the pipe, as `| head -1` does.
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      child.stdout.destroy();
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.equal(stderr, '', `${args.join(' ')}: nothing on stderr`);
      assert.ok(code === 0 || code === 1, `${args.join(' ')}: exit ${code}`);
    }
  });

  it('writes a JSON report longer than a pipe holds to a slow reader whole, the same as to a file', async () => {
    const pods = Array.from({ length: 800 }, (_, index) =>
      podYaml('livenessProbe:\n  tcpSocket:\n    port: 80\n  timeoutSeconds: 10\nreadinessProbe:\n  tcpSocket:\n    port: 81').replace(
        /name: \S+/,
        `name: pod-${index}`,
      ),
    );
    const manifest = join(work, 'many.yaml');
    writeFileSync(manifest, pods.join('---\n'));
    const expected = runCli([manifest, '--format', 'json', '--fail-on', 'never']).stdout;
    assert.ok(expected.length > 512 * 1024, `${expected.length} bytes: more than several chunks and a pipe's buffer`);
    const child = spawn(process.execPath, [CLI, manifest, '--format', 'json', '--fail-on', 'never'], { cwd: ROOT });
    // Read a chunk at a time, pausing in between, as a slow consumer would.
    let received = '';
    child.stdout.on('data', (chunk: Buffer) => {
      received += chunk.toString();
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), 2);
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0);
    const withoutDuration = (text: string) => text.replace(/"durationMs": [0-9.]+/g, '');
    assert.equal(withoutDuration(received), withoutDuration(expected));
    assert.equal((JSON.parse(received) as { findings: unknown[] }).findings.length, 800);
  });

  it('never shows a success mark when the exit code is not 0: input errors first', () => {
    const broken = join(work, 'broken.yaml');
    writeFileSync(broken, 'kind: [\n');
    const run = runCli([broken]);
    assert.equal(run.code, 2);
    const summary = run.stdout.trimEnd().split('\n').at(-1)!;
    assert.match(summary, /^✖ 1 input error; 0 problems /);
    assert.doesNotMatch(run.stdout, /✔/);
  });

  it('says "no Kubernetes objects found" for empty stdin and exits 2; files may opt in with --fail-if-no-objects', () => {
    const empty = runCli(['-'], { input: '' });
    assert.equal(empty.code, 2);
    assert.match(empty.stdout, /no Kubernetes objects found \(was the input empty, or did the command that produced it fail\?\)/);
    assert.equal(runCli(['-', '--no-fail-if-no-objects'], { input: '' }).code, 0);
    const notKubernetes = join(work, 'values.yaml');
    writeFileSync(notKubernetes, 'replicas: 3\n');
    assert.equal(runCli([notKubernetes]).code, 0, 'files without objects are fine by default (pre-commit passes every YAML file)');
    assert.equal(runCli([notKubernetes, '--fail-if-no-objects']).code, 2);
  });

  it('turns a crash into exit 2 with a one-line reason, and the stack only with --debug', async () => {
    const crashing: Partial<CommandIo> = {
      stdout: () => {
        throw new TypeError('the output went away');
      },
    };
    const quiet = await inProcess(['examples/'], crashing);
    assert.equal(quiet.code, 2);
    assert.equal(quiet.stderr, 'probe-lint: internal error: the output went away\nRun again with --debug to see where it happened, and please report it.\n');
    const loud = await inProcess(['examples/', '--debug'], crashing);
    assert.equal(loud.code, 2);
    assert.match(loud.stderr, /^probe-lint: internal error: the output went away\nTypeError: the output went away\n\s+at /);
  });
});

describe('command grammar', () => {
  it('reads `help` and `version` as commands, and the explicit `lint` form', async () => {
    assert.match((await inProcess(['help'])).stdout, /^Usage:\n/);
    assert.match((await inProcess(['version'])).stdout, /^\d+\.\d+\.\d+\n$/);
    const explicit = await inProcess(['lint', 'examples/', '--format', 'json']);
    assert.equal(JSON.parse(explicit.stdout).summary.files, 3);
  });

  it('refuses extra words after a command, and lints a folder named like a command when written ./NAME', async () => {
    const extra = await inProcess(['rules', 'extra']);
    assert.equal(extra.code, 2);
    assert.match(extra.stderr, /`probe-lint rules` takes no arguments \(got extra\)/);
    const folder = await inProcess(['./rules', '--format', 'json', '--fail-on', 'never']);
    assert.equal(folder.code, 0);
    assert.ok(JSON.parse(folder.stdout).summary.files > 10, 'the rules/ folder with its fixtures');
  });

  it('never reads a file name as an option: after --, and before it when an argument names a file that exists', () => {
    const exists = (path: string) => ['--config=evil.yaml', '--kubeconfig=kc.yaml', '-f'].includes(path);
    const parsed = (argv: string[]) => parseCommandLine(argv, exists);
    assert.deepEqual(parsed(['--config=evil.yaml', 'pod.yaml']).positionals, ['pod.yaml', '--config=evil.yaml']);
    assert.equal(parsed(['--config=evil.yaml', 'pod.yaml']).values.config, undefined);
    assert.deepEqual(parsed(['-f', 'x']).positionals, ['x', '-f'], 'a file named like a short option too');
    assert.equal(parsed(['--config=other.yaml', 'pod.yaml']).values.config, 'other.yaml', 'an option naming no file is an option');
    assert.deepEqual(parsed(['--fail-on', 'error', '--', '--fix', 'lint', '-']).positionals, ['--fix', 'lint', '-']);
    assert.equal(parsed(['--', 'lint']).command, 'lint', 'the default command; "lint" after -- is a file');
    assert.deepEqual(parsed(['--', 'lint']).positionals, ['lint']);
    assert.equal(parsed(['--', 'rules']).command, 'lint');
    assert.equal(parsed(['--', 'rules']).values.fix, undefined);
  });

  it('explains the grammar in --help, generated from the option table', async () => {
    const help = (await inProcess(['--help'])).stdout;
    assert.match(
      help,
      /A path that is also a command name \(lint, rules, explain, timeline, simulate, audit, serve, policies, lsp, help, version\) is written \.\/NAME/,
    );
    for (const option of [
      '--format FORMAT',
      '--enable RULE',
      '--min-severity LEVEL',
      '--fix-type TYPES',
      '--helm PATH',
      '--host ADDRESS',
      '--shutdown-timeout SECONDS',
      '--debug',
    ]) {
      assert.ok(help.includes(option), option);
    }
    assert.match(help, /Environment: LOG_LEVEL/);
  });
});

describe('typos', () => {
  it('names an unknown option, suggests the right one, and points at --help in one line', async () => {
    const run = await inProcess(['--formt', 'json', '-']);
    assert.equal(run.code, 2);
    assert.equal(run.stderr, 'probe-lint: unknown option --formt (did you mean --format?)\nRun `probe-lint --help` for the commands and options.\n');
  });

  it('refuses an option that belongs to another command', async () => {
    const run = await inProcess(['serve', '--fail-on', 'error', '--tls-cert', 'a', '--tls-key', 'b']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--fail-on does not apply to `probe-lint serve` \(it is for: lint, audit\)/);
  });

  it('suggests the rule meant by --enable or --disable', async () => {
    const run = await inProcess(['-', '--disable', 'timeout-not-bellow-period']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /unknown rule "timeout-not-bellow-period" \(did you mean "timeout-not-below-period"\?\)/);
  });

  it('reports a typo in an ignore annotation as a warning on the object', () => {
    const annotated = warning.replace('  name: p\n', '  name: p\n  annotations:\n    probe-lint.dev/ignore: "timeout-not-bellow-period"\n');
    const run = runCli(['-', '--format', 'json'], { input: annotated });
    const rules = JSON.parse(run.stdout)
      .findings.map((finding: { rule: string }) => finding.rule)
      .sort();
    assert.deepEqual(rules, ['ignore-annotation-unknown-rule', 'timeout-not-below-period'], 'the typo suppresses nothing, and says so');
  });
});

describe('rule selection without a config file', () => {
  it('--disable turns a rule off, --enable back on over the config, --min-severity hides lower findings', () => {
    const run = (args: string[]) => JSON.parse(runCli(['-', '--format', 'json', '--fail-on', 'never', ...args], { input: warning }).stdout);
    assert.deepEqual(
      run([]).findings.map((finding: { rule: string }) => finding.rule),
      ['timeout-not-below-period'],
    );
    assert.deepEqual(run(['--disable', 'timeout-not-below-period']).findings, []);
    const config = join(work, 'off.yaml');
    writeFileSync(config, 'rules:\n  timeout-not-below-period: "off"\n');
    assert.deepEqual(
      run(['--config', config, '--enable', 'timeout-not-below-period']).findings.map((finding: { rule: string }) => finding.rule),
      ['timeout-not-below-period'],
    );
    const infos = runCli(['-', '--min-severity', 'warning'], { input: infoOnly });
    assert.equal(infos.code, 0);
    assert.match(infos.stdout, /✔ no problems in 1 file, 1 resource, 1 container; 1 below --min-severity not shown/);
  });
});

describe('probe-lint rules', () => {
  it("prints JSON from the rules' metadata, and a Markdown table", async () => {
    const rules = JSON.parse((await inProcess(['rules', '--format', 'json'])).stdout) as {
      id: string;
      severity: string;
      fix: string | null;
      options: object;
      docs: string;
    }[];
    assert.deepEqual(
      rules.map((rule) => rule.id),
      RULES.map((rule) => rule.meta.id),
    );
    const exec = rules.find((rule) => rule.id === 'exec-probe-dense-cluster')!;
    assert.equal(exec.severity, 'info', 'what it reports by default (density unknown)');
    assert.deepEqual(exec.options, {
      minPeriodSeconds: { default: 10, type: 'integer', minimum: 1, description: 'Exec probes more frequent than this are flagged.' },
    });
    assert.match(exec.docs, /rules\/exec-probe-dense-cluster\/README\.md$/);
    const markdown = (await inProcess(['rules', '--format', 'markdown'])).stdout;
    assert.match(markdown, /^\| id \| severity \| fix \| what it flags \|\n\|---\|---\|---\|---\|\n\| \[`grpc-named-port`\]/);
  });
});

describe('configuration strictness', () => {
  it('finds .probe-lint.yml like .probe-lint.yaml', async () => {
    const directory = join(work, 'yml');
    mkdirSync(directory);
    writeFileSync(join(directory, '.probe-lint.yml'), 'rules:\n  timeout-not-below-period: "off"\n');
    writeFileSync(join(directory, 'pod.yaml'), warning);
    const run = await inProcess(['pod.yaml', '--format', 'json'], { cwd: directory });
    assert.deepEqual(JSON.parse(run.stdout).findings, []);
  });
});

describe('audit without a cluster', () => {
  it('says where it looked for a kubeconfig', () => {
    const run = runCli(['audit', '-A'], { env: { HOME: work, KUBECONFIG: '', KUBERNETES_SERVICE_HOST: '' } });
    assert.equal(run.code, 2);
    assert.equal(run.stderr, 'probe-lint audit: no kubeconfig found (looked in $KUBECONFIG, ~/.kube/config, in-cluster); give --kubeconfig FILE\n');
  });
});

describe('--fix keeps line ends and byte-order marks', () => {
  it('writes CRLF on the lines it adds to a CRLF file, and keeps a BOM', () => {
    const file = join(work, 'crlf.yaml');
    const text = `\uFEFF${podYaml('livenessProbe:\n  tcpSocket:\n    port: 80\n  initialDelaySeconds: 60\nreadinessProbe:\n  tcpSocket:\n    port: 81').replace(/\n/g, '\r\n')}`;
    writeFileSync(file, text);
    const run = runCli(['--fix', '--fix-type', 'suggestion', file]);
    assert.match(run.stderr, /fixed 1 problem in 1 file/);
    const fixed = readFileSync(file, 'utf8');
    assert.ok(fixed.startsWith('\uFEFF'), 'the BOM is kept');
    assert.match(fixed, /startupProbe:\r\n/);
    assert.doesNotMatch(fixed.replace(/\r\n/g, ''), /\n/, 'every line ends with CRLF');
  });
});

describe('colours and width', () => {
  it('follows --color/--no-color, NO_COLOR, FORCE_COLOR and TERM=dumb', async () => {
    const coloured = (io: Partial<CommandIo>, args: string[] = []) =>
      inProcess(['-', ...args], { readStdin: () => warning, ...io }).then((run) => /\x1b\[/.test(run.stdout));
    assert.equal(await coloured({ isTty: true }), true);
    assert.equal(await coloured({ isTty: true, env: { NO_COLOR: '1' } }), false);
    assert.equal(await coloured({ isTty: true, env: { TERM: 'dumb' } }), false);
    assert.equal(await coloured({ isTty: false, env: { FORCE_COLOR: '1' } }), true);
    assert.equal(await coloured({ isTty: false, env: { FORCE_COLOR: '0' } }), false);
    assert.equal(await coloured({ isTty: true, env: { NO_COLOR: '1' } }, ['--color']), true);
    assert.equal(await coloured({ isTty: true }, ['--no-color']), false);
  });

  it('wraps messages under their line on a 100-column terminal; compact keeps one line each', async () => {
    const wrapped = await inProcess(['-', '--no-color'], { readStdin: () => warning, isTty: true, columns: 100 });
    const lines = wrapped.stdout.split('\n');
    assert.ok(
      lines.every((line) => line.length <= 100),
      lines.find((line) => line.length > 100),
    );
    assert.match(wrapped.stdout, /^ {2}-:13:9 {2}warning {2}timeout-not-below-period\s*\n {4}Pod\/p, container "c": livenessProbe/m);
    const compact = await inProcess(['-', '--format', 'compact'], { readStdin: () => warning });
    assert.match(compact.stdout, /^-:13:9: warning \[timeout-not-below-period\] Pod\/p, container "c": livenessProbe timeoutSeconds 10 s/);
  });
});

describe('SARIF and GitHub details', () => {
  it('keeps # comments of YAML examples in SARIF help text, and says "1 file" in the GitHub summary', () => {
    const sarif = JSON.parse(runCli(['-', '--format', 'sarif'], { input: warning }).stdout);
    const rule = sarif.runs[0].tool.driver.rules.find((candidate: { id: string }) => candidate.id === 'timeout-not-below-period');
    assert.match(rule.help.text, /timeoutSeconds: 10 {8}# periodSeconds defaults to 10/);
    assert.doesNotMatch(rule.help.text, /^## /m);
    const github = runCli(['-', '--format', 'github'], { input: warning }).stdout;
    assert.match(github, /probe-lint: 0 errors, 1 warning, 0 infos in 1 file\n$/);
  });
});

describe('a byte-order mark', () => {
  it('does not shift positions', () => {
    const plain = JSON.parse(runCli(['-', '--format', 'json'], { input: warning }).stdout).findings;
    const withBom = JSON.parse(runCli(['-', '--format', 'json'], { input: `\uFEFF${warning}` }).stdout).findings;
    assert.deepEqual(
      withBom.map((finding: { line: number; column: number }) => [finding.line, finding.column]),
      plain.map((finding: { line: number; column: number }) => [finding.line, finding.column]),
    );
  });
});

describe('help per command', () => {
  it('shows one command’s usage and options with `probe-lint COMMAND --help`, every command’s with `--help`', async () => {
    const timeline = (await inProcess(['timeline', '--help'])).stdout;
    assert.match(timeline, /^Usage:\n {2}probe-lint timeline PATH\.\.\. \[--container NAME\]/);
    assert.match(timeline, /--container NAME/);
    assert.match(timeline, /-f, --format FORMAT +text \(default\), json, svg \(a chart\), markdown/);
    assert.doesNotMatch(timeline, /--fix|--tls-cert|--fail-on|probe-lint serve/);
    const all = (await inProcess(['--help'])).stdout;
    for (const command of ['timeline', 'audit', 'serve', 'policies', 'lsp']) assert.match(all, new RegExp(`probe-lint ${command}`));
    assert.match(all, /--tls-cert FILE/);
    assert.match((await inProcess(['audit', '--help'])).stdout, /--kubeconfig FILE/);
    assert.doesNotMatch((await inProcess(['lint', '--help'])).stdout, /--kubeconfig/, 'lint reads no cluster');
  });
});
