// A pull request's repository is written by whoever opened it, and the CI job that lints it holds
// secrets. Each case builds a hostile repository and runs the real CLI with the real helm and
// kubectl over it: nothing leaks, nothing is fetched, nothing hangs, nothing outside the tree is
// read or pointed at, and no output can be forged.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { podYaml, ROOT, runCli, runCliAsync } from './helpers.js';
import { helmBinary, kubectlBinary } from './tools.js';

const SECRET = 'ghp_probeLintTestSecret0123456789';

/** A fresh repository (a git work tree: the tree a chart may read) with the given files. */
function repository(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'probe-lint-untrusted-'));
  mkdirSync(join(root, '.git'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const CHART = 'apiVersion: v2\nname: app\nversion: 0.1.0\n';
/** A template that puts a file of the chart into a container name, where every report shows it. */
const LEAKING_TEMPLATE = `apiVersion: v1
kind: Pod
metadata: {name: leak}
spec:
  containers:
    - name: {{ .Files.Get "loot.txt" | quote }}
      image: app:1
`;

/** An HTTP server on loopback that notes every request and answers nothing useful. */
class RecordingServer {
  readonly requests: string[] = [];
  private server: Server | undefined;
  port = 0;
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.requests.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }
  stop(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** A TCP server on loopback that accepts connections and never answers. */
class StallingServer {
  private server: TcpServer | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;
  async start(): Promise<void> {
    this.server = createTcpServer((socket) => {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }
  stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

let tools: string[];
before(() => {
  tools = ['--helm', helmBinary(), '--kustomize', kubectlBinary()];
});

describe('secrets do not leak through a chart', () => {
  it('refuses a chart file linked to /proc/self/environ, and the secret appears in no report', () => {
    const root = repository({ 'chart/Chart.yaml': CHART, 'chart/templates/pod.yaml': LEAKING_TEMPLATE });
    symlinkSync('/proc/self/environ', join(root, 'chart/loot.txt'));
    for (const format of ['text', 'sarif', 'json']) {
      const run = runCli(['chart', ...tools, '--format', format], { cwd: root, env: { GH_TOKEN: SECRET } });
      assert.equal(run.code, 2);
      assert.doesNotMatch(run.stdout + run.stderr, new RegExp(SECRET));
    }
    const text = runCli(['chart', ...tools], { cwd: root, env: { GH_TOKEN: SECRET } });
    assert.match(text.stdout, /cannot render the chart chart: chart\/loot\.txt is a symbolic link to \/proc\/\d+\/environ, outside the tree being linted/);
  });

  it('refuses a link to a file outside the repository, and renders one that stays inside', () => {
    const outside = join(mkdtempSync(join(tmpdir(), 'probe-lint-outside-')), 'credentials');
    writeFileSync(outside, `aws_secret_access_key=${SECRET}\n`);
    const root = repository({ 'chart/Chart.yaml': CHART, 'chart/templates/pod.yaml': LEAKING_TEMPLATE, 'shared/name.txt': 'from-the-repo' });
    symlinkSync(outside, join(root, 'chart/loot.txt'));
    const refused = runCli(['chart', ...tools, '--format', 'compact'], { cwd: root });
    assert.equal(refused.code, 2);
    assert.doesNotMatch(refused.stdout, new RegExp(SECRET));
    assert.match(refused.stdout, /chart\/loot\.txt is a symbolic link to .*credentials, outside the tree being linted/);

    const inside = repository({ 'chart/Chart.yaml': CHART, 'chart/templates/pod.yaml': LEAKING_TEMPLATE, 'shared/name.txt': 'from-the-repo' });
    symlinkSync('../shared/name.txt', join(inside, 'chart/loot.txt'));
    const rendered = runCli(['chart', ...tools, '--format', 'json', '--fail-on', 'never'], { cwd: inside });
    assert.equal(rendered.code, 0, rendered.stdout);
    assert.ok((JSON.parse(rendered.stdout) as { findings: { container: string }[] }).findings.some((finding) => finding.container === 'from-the-repo'));
  });

  it('gives a renderer none of the caller\u2019s environment but PATH, locale and Go\u2019s memory settings: no token, no kubeconfig, no HOME, no helm settings', () => {
    // A renderer given with --helm is a real program: this one writes what it was given into a manifest.
    const root = repository({ 'chart/Chart.yaml': CHART, 'chart/templates/pod.yaml': 'kind: Pod\n' });
    const script = join(root, 'print-env.sh');
    writeFileSync(
      script,
      '#!/bin/sh\nprintf "apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: env}\\ndata:\\n"\nenv | sort | sed \'s/^\\([^=]*\\)=\\(.*\\)/  \\1: "\\2"/\'\n',
      { mode: 0o755 },
    );
    const env = runRendererEnv(root, script);
    assert.equal(env.GH_TOKEN, undefined);
    assert.equal(env.AWS_SECRET_ACCESS_KEY, undefined);
    assert.equal(env.SSH_AUTH_SOCK, undefined);
    assert.notEqual(env.KUBECONFIG, '/root/.kube/config');
    assert.notEqual(env.HELM_PLUGINS, '/root/plugins');
    assert.match(env.HOME ?? '', /probe-lint-render-/);
    assert.equal(env.GIT_ALLOW_PROTOCOL, 'none');
    assert.ok(env.PATH);
    // Go's collector at 400 unless the caller's environment says otherwise (docs/performance.md).
    assert.equal(env.GOGC, process.env.GOGC ?? '400');
    assert.equal(env.GOMEMLIMIT, process.env.GOMEMLIMIT);

    const platform = runRendererEnv(root, script, { GOGC: '150', GOMEMLIMIT: '300MiB' });
    assert.equal(platform.GOGC, '150');
    assert.equal(platform.GOMEMLIMIT, '300MiB');
  });
});

/** What a renderer saw, through a chart whose "helm" copies its environment into a file. */
function runRendererEnv(root: string, script: string, callerEnv: Record<string, string> = {}): Record<string, string> {
  const output = join(root, 'seen-env');
  const recorder = join(root, 'record-env.sh');
  writeFileSync(recorder, `#!/bin/sh\nenv > ${JSON.stringify(output)}\nexec ${JSON.stringify(script)} "$@"\n`, { mode: 0o755 });
  runCli(['chart', '--helm', recorder, '--fail-on', 'never', '--no-fail-if-no-objects'], {
    cwd: root,
    env: {
      GH_TOKEN: SECRET,
      AWS_SECRET_ACCESS_KEY: SECRET,
      KUBECONFIG: '/root/.kube/config',
      HELM_PLUGINS: '/root/plugins',
      SSH_AUTH_SOCK: '/tmp/agent',
      ...callerEnv,
    },
  });
  return Object.fromEntries(
    readFileSync(output, 'utf8')
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

describe('rendering makes no network request', () => {
  let server: RecordingServer;
  before(async () => {
    server = new RecordingServer();
    await server.start();
  });
  after(() => server.stop());

  it('a kustomization with a remote resource fails fast naming the URL, fetches nothing, and its local files are still linted', async () => {
    const url = `http://127.0.0.1:${server.port}/latest/meta-data/iam/security-credentials/`;
    const root = repository({
      'deploy/kustomization.yaml': `resources:\n  - ${url}\n  - app.yaml\n`,
      'deploy/app.yaml': podYaml('livenessProbe: {httpGet: {path: /, port: 8080}, timeoutSeconds: 10}'),
    });
    const run = await runCliAsync(['deploy', ...tools, '--format', 'compact'], { cwd: root });
    assert.equal(run.code, 2);
    assert.deepEqual(server.requests, []);
    assert.match(
      run.stdout,
      new RegExp(
        `deploy/kustomization.yaml: error \\[input\\] cannot build the kustomization \\(kubectl kustomize deploy\\): it refers to ${url.replace(/[.?]/g, '\\$&')}: the network is off while rendering \\(--allow-network turns it on\\); its 1 local resource file is linted as written`,
      ),
    );
    assert.match(run.stdout, /^deploy\/app\.yaml:\d+:\d+: warning \[timeout-not-below-period\]/m);
  });

  it("a chart's schema that names a URL: rendered with schema validation skipped, a notice on stderr and in the JSON report, nothing fetched", async () => {
    const root = repository({
      'chart/Chart.yaml': CHART,
      'chart/values.schema.json': JSON.stringify({ $ref: `http://127.0.0.1:${server.port}/schema.json`, type: 'object' }),
      'chart/templates/pod.yaml': podYaml('livenessProbe: {httpGet: {path: /, port: 8080}, timeoutSeconds: 10}'),
    });
    const run = await runCliAsync(['chart', ...tools, '--format', 'json', '--fail-on', 'never'], { cwd: root });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(server.requests, []);
    const notice = `rendered chart chart without its values schema: chart/values.schema.json refers to http://127.0.0.1:${server.port}/schema.json: the network is off while rendering (--allow-network turns it on); the values were not checked against it`;
    assert.ok(run.stderr.includes(`probe-lint: ${notice}`), run.stderr);
    const report = JSON.parse(run.stdout) as { notices: string[]; inputErrors: unknown[]; findings: { rule: string; file: string }[] };
    assert.deepEqual(report.notices, [notice]);
    assert.deepEqual(report.inputErrors, []);
    assert.ok(report.findings.some((finding) => finding.rule === 'timeout-not-below-period' && finding.file === 'chart/templates/pod.yaml'));
  });

  it('a schema that reads a file of the machine is still refused, whatever else the schemas name', async () => {
    const root = repository({
      'chart/Chart.yaml': CHART,
      'chart/values.schema.json': JSON.stringify({ allOf: [{ $ref: `http://127.0.0.1:${server.port}/a.json` }, { $ref: 'file:///etc/passwd' }] }),
      'chart/templates/pod.yaml': podYaml(''),
    });
    const run = await runCliAsync(['chart', ...tools, '--format', 'json'], { cwd: root });
    assert.equal(run.code, 2);
    const report = JSON.parse(run.stdout) as { inputErrors: { kind: string; message: string }[] };
    assert.deepEqual(
      report.inputErrors.map((error) => error.kind),
      ['refused'],
    );
    assert.match(report.inputErrors[0]!.message, /refers to file:\/\/\/etc\/passwd: a schema may not read files outside the chart/);
    assert.deepEqual(server.requests, []);
  });

  it("a packaged subchart's schema that names a URL is not fetched: the chart renders without schema validation", async () => {
    const root = repository({ 'parent/Chart.yaml': 'apiVersion: v2\nname: parent\nversion: 0.1.0\ndependencies:\n  - {name: sub, version: 0.1.0}\n' });
    const sub = mkdtempSync(join(tmpdir(), 'probe-lint-sub-'));
    mkdirSync(join(sub, 'sub/templates'), { recursive: true });
    writeFileSync(join(sub, 'sub/Chart.yaml'), 'apiVersion: v2\nname: sub\nversion: 0.1.0\n');
    writeFileSync(join(sub, 'sub/values.schema.json'), JSON.stringify({ $ref: `http://127.0.0.1:${server.port}/schema.json` }));
    writeFileSync(join(sub, 'sub/templates/cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n');
    execFileSync(helmBinary(), ['package', join(sub, 'sub'), '-d', join(root, 'parent/charts')], { stdio: 'ignore' });
    const run = await runCliAsync(['parent', ...tools, '--format', 'compact', '--no-fail-if-no-objects'], { cwd: root });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual(server.requests, []);
    assert.match(
      run.stderr,
      new RegExp(
        `without its values schema: parent/charts/sub-0\\.1\\.0\\.tgz:sub/values\\.schema\\.json refers to http://127\\.0\\.0\\.1:${server.port}/schema\\.json: the network is off while rendering`,
      ),
    );
  });

  for (const isolation of ['namespace', 'proxy']) {
    it(`a renderer that tries the network itself reaches nothing (${isolation === 'namespace' ? 'in a network namespace' : 'without one: proxies and git transports'})`, async () => {
      // Past the checks made before rendering, the sandbox itself holds: this "helm" tries git and an HTTP fetch.
      const root = repository({ 'chart/Chart.yaml': CHART, 'chart/templates/pod.yaml': 'kind: Pod\n' });
      const script = join(root, 'fetching-helm.sh');
      writeFileSync(
        script,
        `#!/bin/sh\ngit ls-remote http://127.0.0.1:${server.port}/repo.git >/dev/null 2>&1\npython3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:${server.port}/fetched', timeout=5)" 2>/dev/null\necho "kind: ConfigMap"\n`,
        { mode: 0o755 },
      );
      const env: Record<string, string> = isolation === 'proxy' ? { PROBE_LINT_NO_NETNS: '1' } : {};
      const run = await runCliAsync(['chart', '--helm', script, '--fail-on', 'never', '--no-fail-if-no-objects'], { cwd: root, env });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.deepEqual(server.requests, []);
    });
  }
});

describe('rendering cannot hang the job', () => {
  let stalling: StallingServer;
  before(async () => {
    stalling = new StallingServer();
    await stalling.start();
  });
  after(() => stalling.stop());

  it('a remote base that never answers is stopped at --render-timeout, even with --allow-network', async () => {
    const root = repository({ 'deploy/kustomization.yaml': `resources:\n  - http://127.0.0.1:${stalling.port}/base.yaml\n` });
    const run = await runCliAsync(['deploy', ...tools, '--allow-network', '--render-timeout', '2', '--format', 'compact'], { cwd: root });
    assert.equal(run.code, 2);
    assert.match(run.stdout, /cannot build the kustomization \(kubectl kustomize deploy\): stopped after 2 s \(--render-timeout SECONDS sets the limit\)/);
  });

  it('a renderer that never ends is killed with everything it started, and the run budget stops the renders after it', async () => {
    const root = repository({ 'a/Chart.yaml': CHART, 'a/templates/x.yaml': 'kind: Pod\n', 'b/Chart.yaml': CHART, 'b/templates/x.yaml': 'kind: Pod\n' });
    const pids = join(root, 'pids');
    const script = join(root, 'hanging-helm.sh');
    // The script starts a child that would outlive it, and waits.
    writeFileSync(script, `#!/bin/sh\nsleep 600 &\necho $! >> ${JSON.stringify(pids)}\nwait\n`, { mode: 0o755 });
    // One render at a time, so that the second starts after the first used up most of the budget.
    const run = await runCliAsync(['a', 'b', '--helm', script, '--render-timeout', '1', '--render-budget', '1.5', '--format', 'compact'], {
      cwd: root,
      env: { PROBE_LINT_RENDER_JOBS: '1' },
    });
    assert.equal(run.code, 2);
    assert.match(run.stdout, /a\/Chart\.yaml: error \[input\] cannot render the chart \(helm template a\): stopped after 1 s/);
    assert.match(
      run.stdout,
      /b\/Chart\.yaml: error \[input\] cannot render the chart \(helm template b\): not rendered: the run's rendering budget of 1\.5 s is spent \(--render-budget SECONDS sets it\)/,
    );
    for (const pid of readFileSync(pids, 'utf8').trim().split('\n')) assert.equal(isRunning(pid), false, `process ${pid} outlived the render`);
  });

  it('reads all a renderer prints before it exits, however much (the pipes are read to their end)', () => {
    const root = repository({ 'chart/Chart.yaml': CHART, 'chart/templates/x.yaml': 'kind: Pod\n' });
    const script = join(root, 'loud-helm.sh');
    // 20,000 Pods, about 4 MB, written as fast as the shell can and then an immediate exit.
    writeFileSync(
      script,
      `#!/bin/sh\ni=0\nwhile [ $i -lt 20000 ]; do printf -- '---\\napiVersion: v1\\nkind: Pod\\nmetadata: {name: p%s}\\nspec: {containers: [{name: c, image: x, livenessProbe: {tcpSocket: {port: 1}}, readinessProbe: {tcpSocket: {port: 2}}}]}\\n' $i; i=$((i+1)); done\n`,
      { mode: 0o755 },
    );
    const run = runCli(['chart', '--helm', script, '--format', 'json'], { cwd: root });
    assert.equal(run.code, 0, run.stderr);
    assert.equal((JSON.parse(run.stdout) as { summary: { resources: number } }).summary.resources, 20000);
  });

  it('refuses a chart holding a FIFO (helm would wait on it forever)', () => {
    const root = repository({ 'chart/Chart.yaml': CHART, 'chart/templates/pod.yaml': 'kind: Pod\n' });
    execFileSync('mkfifo', [join(root, 'chart/templates/fifo.yaml')]);
    const run = runCli(['chart', ...tools, '--format', 'compact'], { cwd: root });
    assert.equal(run.code, 2);
    assert.match(run.stdout, /chart\/templates\/fifo\.yaml is not a regular file \(a FIFO, socket or device\)/);
  });

  it('refuses a chart whose directory link loops back on itself, alone: the rest of the report stands', () => {
    for (const [link, target] of [
      ['chart/self', '.'],
      ['chart/templates/up', '..'],
    ] as const) {
      const root = repository({
        'chart/Chart.yaml': CHART,
        'chart/templates/pod.yaml': podYaml('readinessProbe: {tcpSocket: {port: 80}}'),
        'plain/pod.yaml': podYaml(''),
      });
      symlinkSync(target, join(root, link));
      const run = runCli(['.', ...tools, '--format', 'json', '--fail-on', 'never'], { cwd: root });
      assert.equal(run.code, 2, run.stderr);
      const output = JSON.parse(run.stdout) as { inputErrors: { file: string; message: string }[]; findings: { file: string }[] };
      assert.deepEqual(
        output.inputErrors.map((error) => error.message),
        [`cannot render the chart chart: ${link} is a symbolic link back to chart, a loop that helm would follow without end; remove the link`],
      );
      assert.ok(
        output.findings.some((finding) => finding.file === 'plain/pod.yaml'),
        'the plain manifest is still linted',
      );
    }
  });
});

/** Alive, and not a zombie waiting for whoever adopted it to reap it. */
function isRunning(pid: string): boolean {
  if (!existsSync(`/proc/${pid}/stat`)) return false;
  try {
    return !/^\d+ \(.*\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('origins stay inside the tree', () => {
  const rendered = (source: string) => `---\n# Source: ${source}\n${podYaml('readinessProbe: {tcpSocket: {port: 8080}, terminationGracePeriodSeconds: 5}')}`;

  for (const source of ['/etc/passwd', '../../../../etc/hostname', 'app/../../../etc/hostname']) {
    it(`a "# Source: ${source}" line on stdin is disregarded: the finding keeps its place in the stream, and SARIF names no outside file`, () => {
      const root = repository({});
      const run = runCli(['-', '--format', 'sarif'], { cwd: root, input: rendered(source) });
      assert.equal(run.code, 1);
      const uris = [...run.stdout.matchAll(/"uri":\s*"([^"]+)"/g)].map((match) => match[1]);
      assert.ok(uris.length > 0);
      for (const uri of uris) assert.doesNotMatch(uri!, /etc\/(passwd|hostname)/);
      const compact = runCli(['-', '--format', 'compact'], { cwd: root, input: rendered(source) });
      assert.match(compact.stdout, /^-:\d+:\d+: error \[readiness-termination-grace-period\]/m);
    });
  }

  it('a chart whose template writes its own "# Source:" line pointing outside keeps the finding in the chart', () => {
    const root = repository({
      'chart/Chart.yaml': CHART,
      'chart/templates/pod.yaml': `# Source: /etc/passwd\n${podYaml('readinessProbe: {tcpSocket: {port: 8080}, terminationGracePeriodSeconds: 5}')}`,
    });
    const run = runCli(['chart', ...tools, '--format', 'compact'], { cwd: root });
    assert.equal(run.code, 1);
    assert.doesNotMatch(run.stdout, /etc\/passwd/);
    assert.match(run.stdout, /^chart\/templates\/pod\.yaml:\d+:\d+: error \[readiness-termination-grace-period\]/m);
  });
});

describe('templates cannot stall the lint', () => {
  /** A Deployment whose one container's liveness probe times out at its period (a finding to place). */
  const deployment = (nameLine: string, app: string) =>
    [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      nameLine,
      'spec:',
      `  selector: {matchLabels: {app: ${app}}}`,
      '  template:',
      `    metadata: {labels: {app: ${app}}}`,
      '    spec:',
      '      containers:',
      '      - name: web',
      '        image: example/web:1',
      '        livenessProbe: {tcpSocket: {port: 80}, timeoutSeconds: 5, periodSeconds: 5}',
    ].join('\n');
  const placed = (stdout: string) =>
    [...stdout.matchAll(/^chart\/templates\/app\.yaml:(\d+):\d+: warning \[timeout-not-below-period\]/gm)].map((match) => Number(match[1]));

  // Hang guards, not measures of speed (a run is killed after a minute): the first took over 5 minutes
  // with 28 pairs before template names were matched without a regular expression, the second is
  // quadratic in the blanks.
  it('places findings by names written as 40 pairs of text and action, beside a name that almost renders from them', () => {
    const written = `  name: ${'a{{ "a" }}'.repeat(40)}b`;
    const almost = `  name: ${'a'.repeat(90)}c`;
    const root = repository({ 'chart/Chart.yaml': CHART, 'chart/templates/app.yaml': `${deployment(written, 'x')}\n---\n${deployment(almost, 'y')}\n` });
    const run = runCli(['chart', ...tools, '--format', 'compact'], { cwd: root, killAfterMs: 60_000 });
    assert.equal(run.code, 1, run.stderr);
    // Each on its own document's probe (line 13 and line 27), not both on the first.
    assert.deepEqual(placed(run.stdout), [13, 27]);
  });

  it('reads a name line with 200,000 blanks inside it', () => {
    const blanks = `  name: a${' '.repeat(200_000)}b`;
    const root = repository({
      'chart/Chart.yaml': CHART,
      'chart/templates/app.yaml': `${deployment(blanks, 'x')}\n---\n${deployment('  name: other', 'y')}\n`,
    });
    const run = runCli(['chart', ...tools, '--format', 'compact'], { cwd: root, killAfterMs: 60_000 });
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(placed(run.stdout), [13, 27]);
  });
});

describe('output cannot be forged', () => {
  // A name the API server would refuse, but a file can say anything: an escape sequence, a carriage
  // return, and a newline followed by a GitHub workflow command.
  const hostileName = 'web\u001b[2J\r\n::error file=x::forged\n::stop-commands::token';
  const manifest = () => {
    const root = repository({
      'pod.yaml': podYaml('readinessProbe: {tcpSocket: {port: 8080}, terminationGracePeriodSeconds: 5}').replace(
        /name: [^\n]+/,
        `name: ${JSON.stringify(hostileName)}`,
      ),
    });
    return root;
  };

  for (const format of ['text', 'compact', 'github']) {
    it(`${format}: no control character reaches the output, and no line starts a workflow command but probe-lint's own`, () => {
      const run = runCli(['pod.yaml', '--format', format], { cwd: manifest() });
      assert.equal(run.code, 1, run.stdout);
      assert.doesNotMatch(run.stdout, /[\u0000-\u0008\u000b-\u001f\u007f]/);
      for (const line of run.stdout.split('\n')) assert.doesNotMatch(line, /^::(?!(?:error|warning|notice) file=pod\.yaml,)/);
      assert.doesNotMatch(run.stdout, /^::stop-commands/m);
      if (format !== 'github') assert.match(run.stdout, /web\\e\[2J\\r\\n::error file=x::forged\\n::stop-commands::token/);
    });
  }

  it('a chart directory whose name holds a newline cannot forge a line through the --no-render notice', () => {
    const root = repository({ 'charts/evil\n::error::forged/Chart.yaml': CHART });
    const run = runCli(['charts', '--no-render', '--no-fail-if-no-objects'], { cwd: root });
    assert.match(run.stderr, /probe-lint: skipped chart charts\/evil\\n::error::forged \(--no-render\)/);
    assert.doesNotMatch(run.stderr, /^::error/m);
  });
});

describe('--fix and hard links', () => {
  it('refuses a file with a second hard link and leaves both names as they were', () => {
    const text = podYaml('readinessProbe: {tcpSocket: {port: 8080}, terminationGracePeriodSeconds: 5}');
    const root = repository({ 'pod.yaml': text });
    linkSync(join(root, 'pod.yaml'), join(root, 'other-name.yaml'));
    const run = runCli(['pod.yaml', '--fix'], { cwd: root });
    assert.equal(run.code, 2);
    assert.match(run.stderr + run.stdout, /the file has 2 hard links, which a write would break/);
    assert.equal(readFileSync(join(root, 'pod.yaml'), 'utf8'), text);
    assert.equal(readFileSync(join(root, 'other-name.yaml'), 'utf8'), text);
  });
});

describe('config values mean the same everywhere, or are refused everywhere', () => {
  // An exemption glob with a newline and the policies' separators would have become a line of its
  // own in the policies' parameters; a namespace key with "=" and "," a mode of its own.
  const hostile = [
    {
      config: `ignore:\n  - name: "nothing-here\\nprobe-port-not-declared;*;*"\n    reason: sneaky\n`,
      field: /ignore\.0\.name: a glob holds only letters, digits/,
    },
    { config: `webhook:\n  namespaces:\n    "prod=off,ghost": {mode: enforce}\n`, field: /webhook\.namespaces: "prod=off,ghost" is not a namespace name/ },
  ];
  for (const { config, field } of hostile) {
    it(`refuses ${JSON.stringify(config.split('\n')[1]!.trim())} in lint, policies and serve, and helm refuses it in the chart's values`, async () => {
      const root = repository({ '.probe-lint.yaml': config, 'pod.yaml': podYaml('') });
      const lint = runCli(['pod.yaml'], { cwd: root });
      assert.equal(lint.code, 2);
      assert.match(lint.stderr, field);
      const policies = runCli(['policies'], { cwd: root });
      assert.equal(policies.code, 2);
      assert.match(policies.stderr, field);
      assert.equal(policies.stdout, '');
      const serve = await runCliAsync(['serve', '--tls-cert', '/nonexistent', '--tls-key', '/nonexistent', '--port', '0'], { cwd: root });
      assert.equal(serve.code, 2);
      assert.match(serve.stderr, field);
      const values = join(root, 'values.yaml');
      writeFileSync(values, `policies: {enabled: true}\nconfig:\n${config.replace(/^/gm, '  ')}`);
      const chart = spawnSync(helmBinary(), ['template', 'probe-lint', join(ROOT, 'charts/probe-lint'), '--values', values], { encoding: 'utf8' });
      assert.notEqual(chart.status, 0);
      assert.match(chart.stderr, /values don't meet the specifications of the schema/);
    });
  }
});
