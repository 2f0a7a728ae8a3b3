// `probe-lint lsp` driven over the protocol as an editor drives it: its own process, JSON-RPC over
// stdio. What it shows must be what the CLI reports for the same text: findings and their places,
// fixes, suppressions, timelines; charts through helm.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { CodeAction, CompletionItem, Diagnostic, Hover } from 'vscode-languageserver/node';
import { RULES } from '../rules/index.js';
import { Engine } from '../src/engine/engine.js';
import { ignoreCompletions } from '../src/lsp/completion.js';
import { LintSession } from '../src/lint/index.js';
import { probeAt } from '../src/lsp/probe-at.js';
import { ROOT, runCli, type JsonFinding } from './helpers.js';
import { applyWorkspaceEdit, LspClient } from './lsp-client.js';
import { helmBinary, kubectlBinary } from './tools.js';

const messageOf = (diagnostic: Diagnostic) => (typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value);
const SEVERITY: Record<string, number> = { error: 1, warning: 2, info: 3 };

function cliFindings(args: string[], cwd = ROOT): JsonFinding[] {
  const run = runCli([...args, '--format', 'json', '--fail-on', 'never'], { cwd });
  return (JSON.parse(run.stdout) as { findings: JsonFinding[] }).findings;
}

/** "line:column rule severity": what a user sees, in the CLI's 1-based terms. */
const place = (diagnostic: Diagnostic) =>
  `${diagnostic.range.start.line + 1}:${diagnostic.range.start.character + 1} ${String(diagnostic.code)} ${diagnostic.severity}`;
const cliPlace = (finding: JsonFinding) => `${finding.line}:${finding.column} ${finding.rule} ${SEVERITY[finding.severity]}`;

let work: string;
before(() => {
  work = mkdtempSync(join(tmpdir(), 'probe-lint-lsp-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

describe('the language server', () => {
  let client: LspClient;
  before(async () => {
    client = await LspClient.start();
  });
  after(async () => {
    assert.equal(await client.stop(), 0, 'the server exits cleanly after shutdown and exit');
  });

  it("publishes the CLI's findings for each example as it is opened: same places, severities, messages, with the rule id and its docs", async () => {
    for (const name of ['shop.yaml', 'payments.yaml', 'nightly-report.yaml']) {
      const path = join(ROOT, 'examples', name);
      const expected = cliFindings([path]);
      const diagnostics = await client.diagnostics(await client.open(path));
      assert.deepEqual(diagnostics.map(place).sort(), expected.map(cliPlace).sort(), name);
      assert.deepEqual(diagnostics.map(messageOf).sort(), expected.map((finding) => finding.message).sort(), name);
      for (const diagnostic of diagnostics) {
        assert.equal(diagnostic.source, 'probe-lint');
        assert.equal(diagnostic.codeDescription?.href, `https://github.com/probe-lint/probe-lint/blob/main/rules/${String(diagnostic.code)}/README.md`);
        assert.ok(diagnostic.range.end.character > diagnostic.range.start.character, `${place(diagnostic)}: the range covers the field's key`);
      }
    }
    // JSON as well: the Deployment of shop.yaml, as `kubectl get -o json` would write it.
    const json = join(work, 'storefront.json');
    const deployment = readFileSync(join(ROOT, 'examples/shop.yaml'), 'utf8').split(/^---\n/m)[1]!;
    writeFileSync(json, `${JSON.stringify((await import('js-yaml')).default.load(deployment), null, 2)}\n`);
    const expected = cliFindings([json]);
    assert.ok(expected.length > 3);
    assert.deepEqual((await client.diagnostics(await client.open(json))).map(place).sort(), expected.map(cliPlace).sort());

    const shop = readFileSync(join(ROOT, 'examples/shop.yaml'), 'utf8').split('\n');
    const mirrors = (await client.diagnostics(pathToFileURL(join(ROOT, 'examples/shop.yaml')).href)).find(
      (diagnostic) => diagnostic.code === 'liveness-mirrors-readiness',
    )!;
    assert.equal(shop[mirrors.range.start.line]!.slice(mirrors.range.start.character, mirrors.range.end.character), 'livenessProbe');
  });

  it('lints again as the text changes, once for a burst of keystrokes, and says where YAML typed halfway breaks', async () => {
    const path = join(work, 'typing.yaml');
    const full = readFileSync(join(ROOT, 'examples/shop.yaml'), 'utf8');
    writeFileSync(path, full);
    const uri = await client.open(path);
    await client.diagnostics(uri);
    const before = client.published.length;
    // Forty keystrokes at once: only the last text is linted.
    let version = 0;
    for (let cut = full.length - 40; cut <= full.length; cut++) version = await client.change(uri, full.slice(0, cut));
    const settled = await client.diagnostics(uri, version);
    assert.deepEqual(
      settled.map(place).sort(),
      cliFindings([join(ROOT, 'examples/shop.yaml')])
        .map(cliPlace)
        .sort(),
    );
    const publishedForBurst = client.published.slice(before).filter((params) => params.uri === uri).length;
    assert.ok(publishedForBurst < 10, `a burst of 41 changes published ${publishedForBurst} times`);

    // An unclosed flow sequence: the CLI's input error, at the CLI's line.
    const broken = full.replace('command: [redis-cli, ping]', 'command: [redis-cli, ping');
    const diagnostics = await client.diagnostics(uri, await client.change(uri, broken));
    const cli = runCli(['-', '--format', 'json', '--fail-on', 'never'], { input: broken });
    const inputError = (JSON.parse(cli.stdout) as { inputErrors: { line: number; message: string }[] }).inputErrors[0]!;
    const shown = diagnostics.find((diagnostic) => messageOf(diagnostic).startsWith('invalid YAML'));
    assert.ok(shown, JSON.stringify(diagnostics));
    assert.equal(messageOf(shown), inputError.message);
    assert.equal(shown.range.start.line + 1, inputError.line);
    assert.equal(shown.severity, 1);
  });

  it("offers each finding's fix as the edit --fix makes, a fix-all equal to --fix, and suggestions as not preferred", async () => {
    const path = join(work, 'fix.yaml');
    copyFileSync(join(ROOT, 'examples/shop.yaml'), path);
    const uri = await client.open(path);
    const diagnostics = await client.diagnostics(uri);
    const grace = diagnostics.find((diagnostic) => diagnostic.code === 'readiness-termination-grace-period')!;
    const actions = await client.codeActionsFor(uri, grace);
    const fix = actions.find((action) => action.title === 'Fix readiness-termination-grace-period')!;
    assert.ok(fix, JSON.stringify(actions.map((action) => action.title)));
    assert.equal(fix.isPreferred, true);
    assert.deepEqual(fix.diagnostics, [grace], 'tied to the diagnostic the editor sent');
    const fixed = applyWorkspaceEdit(client.text(uri), uri, fix.edit!);
    const after = await client.diagnostics(uri, await client.change(uri, fixed));
    assert.deepEqual(
      after.map((diagnostic) => diagnostic.code),
      diagnostics.filter((diagnostic) => diagnostic !== grace).map((diagnostic) => diagnostic.code),
      'the fixed finding is gone; no other changes',
    );
    assert.equal(fixed, readFileSync(path, 'utf8').replace('            terminationGracePeriodSeconds: 5\n', ''));

    // Fix all: what `probe-lint --fix` writes.
    const cliCopy = join(work, 'fix-cli.yaml');
    copyFileSync(join(ROOT, 'examples/shop.yaml'), cliCopy);
    runCli([cliCopy, '--fix', '--fail-on', 'never']);
    const original = readFileSync(path, 'utf8');
    const fixAll = await fixAllOf(client, uri, original);
    assert.equal(fixAll.kind, 'source.fixAll.probe-lint');
    const fromAll = applyWorkspaceEdit(original, uri, fixAll.edit!);
    assert.equal(fromAll, readFileSync(cliCopy, 'utf8'));
    assert.notEqual(fromAll, original);

    // A suggestion (a startupProbe in place of a long initialDelaySeconds) is offered, not preferred.
    await client.change(uri, original);
    const delay = (await client.diagnostics(uri)).find((diagnostic) => diagnostic.code === 'liveness-without-startup-probe')!;
    const offered = await client.codeActionsFor(uri, delay);
    const suggestion = offered.find((action) => action.title === 'Apply the suggestion of liveness-without-startup-probe')!;
    assert.ok(suggestion, JSON.stringify(offered.map((action) => action.title)));
    assert.notEqual(suggestion.isPreferred, true);
    assert.match(applyWorkspaceEdit(original, uri, suggestion.edit!), /startupProbe:/);
  });

  it('writes "ignore this rule here" as the probe-lint.dev/ignore annotation, which the CLI then honours', async () => {
    const path = join(work, 'ignore.yaml');
    copyFileSync(join(ROOT, 'examples/shop.yaml'), path);
    const uri = await client.open(path);
    const diagnostics = await client.diagnostics(uri);
    const mirrors = diagnostics.find((diagnostic) => diagnostic.code === 'liveness-mirrors-readiness')!;
    const actions = await client.codeActionsFor(uri, mirrors);
    const ignore = actions.find((action) => action.title.startsWith('Ignore liveness-mirrors-readiness for container storefront'))!;
    assert.ok(ignore, JSON.stringify(actions.map((action) => action.title)));
    const edited = applyWorkspaceEdit(client.text(uri), uri, ignore.edit!);
    assert.match(
      edited,
      /\n {2}namespace: shop\n {2}annotations:\n {4}probe-lint\.dev\/ignore\.storefront: liveness-mirrors-readiness\nspec:\n {2}replicas: 3/,
    );
    const after = await client.diagnostics(uri, await client.change(uri, edited));
    assert.equal(after.filter((diagnostic) => diagnostic.code === 'liveness-mirrors-readiness').length, 0);
    assert.equal(after.length, diagnostics.length - 1);
    const cli = JSON.parse(runCli(['-', '--format', 'json', '--fail-on', 'never', '--show-suppressed'], { input: edited }).stdout) as {
      suppressed: { rule: string; suppression: { by: string } }[];
    };
    assert.deepEqual(
      cli.suppressed.map((finding) => [finding.rule, finding.suppression.by]),
      [['liveness-mirrors-readiness', 'annotation']],
    );

    // A second rule joins the same annotation, before its reason.
    const withReason = edited.replace('ignore.storefront: liveness-mirrors-readiness', 'ignore.storefront: "liveness-mirrors-readiness # one endpoint"');
    const timeout = (await client.diagnostics(uri, await client.change(uri, withReason))).find((diagnostic) => diagnostic.code === 'timeout-not-below-period')!;
    const more = await client.codeActionsFor(uri, timeout);
    const joined = applyWorkspaceEdit(withReason, uri, more.find((action) => action.title.startsWith('Ignore timeout-not-below-period'))!.edit!);
    assert.match(joined, /probe-lint\.dev\/ignore\.storefront: "liveness-mirrors-readiness, timeout-not-below-period # one endpoint"/);
  });

  it('shows on hover the effective values of a probe and the windows `timeline` gives', async () => {
    const path = join(ROOT, 'examples/payments.yaml');
    const uri = await client.open(path);
    const lines = readFileSync(path, 'utf8').split('\n');
    const row = lines.findIndex((line) => line.trim() === 'livenessProbe:');
    const timeline = JSON.parse(runCli(['timeline', path, '--format', 'json']).stdout) as {
      containers: { container: string; windows: { probe: string; fromSeconds: number; toSeconds: number }[] }[];
    };
    const windows = timeline.containers.find((container) => container.container === 'payments')!.windows;
    // On the key, and on a field deep inside the probe.
    for (const position of [
      { line: row, character: lines[row]!.indexOf('liveness') + 3 },
      { line: row + 2, character: lines[row + 2]!.length - 1 },
    ]) {
      const hover = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position });
      assert.ok(hover, `a hover at ${position.line}:${position.character}`);
      const text = (hover.contents as { value: string }).value;
      assert.match(text, /^\*\*livenessProbe\*\* of container `payments`/);
      assert.match(text, /\| successThreshold \| 1 \(default\) \|/);
      for (const window of windows)
        assert.ok(
          text.includes(`${window.probe} `) && text.includes(`${window.fromSeconds}-${window.toSeconds} s`),
          `${window.probe} ${window.fromSeconds}-${window.toSeconds}`,
        );
      assert.match(text, /liveness and readiness run only once the startupProbe has succeeded/);
    }
    const outside = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 0 } });
    assert.equal(outside, null);
  });

  it('completes rule ids inside a probe-lint.dev/ignore annotation, without those already listed', async () => {
    const path = join(work, 'complete.yaml');
    const text = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  annotations:\n    probe-lint.dev/ignore: "liveness-mirrors-readiness, time\n';
    writeFileSync(path, text);
    const uri = await client.open(path);
    const items = await client.request<CompletionItem[]>('textDocument/completion', { textDocument: { uri }, position: { line: 5, character: 60 } });
    const labels = items.map((item) => item.label);
    assert.ok(labels.includes('timeout-not-below-period'));
    assert.ok(!labels.includes('liveness-mirrors-readiness'), 'already listed');
    assert.equal(labels.length, RULES.length, 'every other rule, and *');
    const timeout = items.find((item) => item.label === 'timeout-not-below-period')!;
    assert.deepEqual((timeout.textEdit as { range: unknown }).range, { start: { line: 5, character: 56 }, end: { line: 5, character: 60 } }, 'replaces "time"');
    const elsewhere = await client.request<CompletionItem[]>('textDocument/completion', { textDocument: { uri }, position: { line: 3, character: 9 } });
    assert.deepEqual(elsewhere, []);
  });

  it('answers requests cancelled before they are handled with the cancellation error, never a stale result, and keeps serving', async () => {
    const path = join(work, 'cancel.yaml');
    copyFileSync(join(ROOT, 'examples/shop.yaml'), path);
    const uri = await client.open(path);
    const { CancellationTokenSource } = await import('vscode-languageserver/node');
    // Sent and cancelled at once: the ones still queued when their cancellation arrives are never computed.
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, () => {
        const source = new CancellationTokenSource();
        const pending = client.connection.sendRequest<Hover | null>(
          'textDocument/hover',
          { textDocument: { uri }, position: { line: 35, character: 12 } },
          source.token,
        );
        source.cancel();
        return pending.then(
          (result) => ({ result }),
          (error: { code: number }) => ({ code: error.code }),
        );
      }),
    );
    const cancelled = outcomes.filter((outcome) => 'code' in outcome);
    assert.ok(cancelled.length > 0, 'some were still queued');
    assert.ok(
      cancelled.every((outcome) => outcome.code === -32800),
      JSON.stringify(cancelled),
    );
    for (const outcome of outcomes) if ('result' in outcome) assert.match((outcome.result!.contents as { value: string }).value, /livenessProbe/);
    const hover = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line: 35, character: 12 } });
    assert.ok(hover !== null);
  });
});

async function fixAllOf(client: LspClient, uri: string, text: string): Promise<CodeAction> {
  await client.diagnostics(uri, await client.change(uri, text));
  const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
    textDocument: { uri },
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    context: { diagnostics: [], only: ['source.fixAll'] },
  });
  assert.equal(actions.length, 1, 'only the fix-all, when only source.fixAll is asked for');
  return actions[0]!;
}

describe('the language server with a config and charts', () => {
  it('follows the nearest .probe-lint.yaml as the CLI does, and says when it cannot be used', async () => {
    const project = join(work, 'configured');
    mkdirSync(project, { recursive: true });
    copyFileSync(join(ROOT, 'examples/shop.yaml'), join(project, 'shop.yaml'));
    writeFileSync(join(project, '.probe-lint.yaml'), 'rules:\n  liveness-mirrors-readiness: off\n');
    const client = await LspClient.start();
    try {
      const uri = await client.open(join(project, 'shop.yaml'));
      const codes = (await client.diagnostics(uri)).map((diagnostic) => String(diagnostic.code));
      assert.deepEqual(
        codes.sort(),
        cliFindings([join(project, 'shop.yaml')], project)
          .map((finding) => finding.rule)
          .sort(),
      );
      assert.ok(!codes.includes('liveness-mirrors-readiness'));
      writeFileSync(join(project, '.probe-lint.yaml'), 'rules:\n  no-such-rule: off\n');
      await client.connection.sendNotification('workspace/didChangeWatchedFiles', {
        changes: [{ uri: pathToFileURL(join(project, '.probe-lint.yaml')).href, type: 2 }],
      });
      const [bad] = await eventuallyBad(client, uri);
      assert.match(messageOf(bad!), /\.probe-lint\.yaml: bad configuration: .*no-such-rule/s);
      assert.equal(bad!.severity, 1);
    } finally {
      await client.stop();
    }
  });

  it('re-lints once for a burst of watched-file notifications (a branch switch), and answers a hover sent behind them first', async () => {
    const client = await LspClient.start();
    try {
      const uri = await client.open(join(ROOT, 'examples/shop.yaml'));
      await client.diagnostics(uri);
      const before = client.published.length;
      const changes = { changes: [{ uri: pathToFileURL(join(ROOT, 'examples/.probe-lint.yaml')).href, type: 2 }] };
      for (let index = 0; index < 150; index++) void client.connection.sendNotification('workspace/didChangeWatchedFiles', changes);
      const hover = await client.request<unknown>('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 0 } });
      assert.ok(hover === null || typeof hover === 'object');
      await client.renderedDiagnostics(uri, before);
      // The shutdown is handled after everything before it: what the burst published is all there by then.
      const stopped = client.stop();
      await stopped;
      const burst = client.published.slice(before).filter((params) => params.uri === uri).length;
      assert.ok(burst >= 1 && burst < 15, `${burst} re-lints for 150 notifications`);
    } finally {
      if (client.child.exitCode === null) await client.stop();
    }
  });

  it("shows nothing for a file the config's exclude leaves out, as the CLI lints nothing there", async () => {
    const project = join(work, 'excluding');
    mkdirSync(join(project, 'hack'), { recursive: true });
    mkdirSync(join(project, '.git'));
    copyFileSync(join(ROOT, 'examples/shop.yaml'), join(project, 'shop.yaml'));
    copyFileSync(join(ROOT, 'examples/shop.yaml'), join(project, 'hack/shop.yaml'));
    writeFileSync(join(project, '.probe-lint.yaml'), 'exclude: [hack/]\n');
    const client = await LspClient.start();
    try {
      assert.ok((await client.diagnostics(await client.open(join(project, 'shop.yaml')))).length > 0, 'a file not excluded is linted');
      assert.deepEqual(await client.diagnostics(await client.open(join(project, 'hack/shop.yaml'))), []);
      assert.deepEqual(
        cliFindings(['.'], project)
          .map((finding) => finding.file)
          .filter((file) => file?.startsWith('hack')),
        [],
      );
    } finally {
      await client.stop();
    }
  });

  it("lints a chart's template through helm when it is opened and saved, at the template lines the CLI gives", async () => {
    const chart = join(ROOT, 'test/fixtures/repo/charts/shop');
    const expected = cliFindings([chart, '--helm', helmBinary()]);
    const client = await LspClient.start(['--helm', helmBinary(), '--no-render-cache']);
    try {
      const deployment = join(chart, 'templates/deployment.yaml');
      const since = client.published.length;
      const uri = await client.open(deployment);
      const diagnostics = await client.renderedDiagnostics(uri, since);
      const inDeployment = expected.filter((finding) => finding.file === 'test/fixtures/repo/charts/shop/templates/deployment.yaml');
      assert.ok(inDeployment.length > 0);
      assert.deepEqual(diagnostics.map(place).sort(), inDeployment.map(cliPlace).sort());
      // The chart's other templates get theirs from the same rendering.
      const statefulset = await client.renderedDiagnostics(pathToFileURL(join(chart, 'templates/statefulset.yaml')).href, since);
      assert.deepEqual(statefulset.map(place), expected.filter((finding) => finding.file?.endsWith('templates/statefulset.yaml')).map(cliPlace));
      // Typing does not render (the text is a template); saving does.
      await client.change(uri, `${client.text(uri)}\n`);
      const beforeSave = client.published.length;
      await client.save(uri);
      assert.deepEqual((await client.renderedDiagnostics(uri, beforeSave)).map(place).sort(), inDeployment.map(cliPlace).sort());
    } finally {
      await client.stop();
    }
  });
  it('lints a kustomize patch through its overlay when it is opened, at the lines of the patch the CLI gives', async () => {
    const patch = join(ROOT, 'test/fixtures/repo/kustomize/overlays/staging/web-probe.yaml');
    const expected = cliFindings([patch, '--kustomize', kubectlBinary()]);
    const inPatch = expected.filter((finding) => finding.file === 'test/fixtures/repo/kustomize/overlays/staging/web-probe.yaml');
    assert.ok(inPatch.length > 0);
    const client = await LspClient.start(['--kustomize', kubectlBinary()]);
    try {
      const since = client.published.length;
      const uri = await client.open(patch);
      assert.deepEqual((await client.renderedDiagnostics(uri, since)).map(place).sort(), inPatch.map(cliPlace).sort());
      // The patch alone is not a whole Deployment: nothing of what linting it as it is would say.
      assert.ok(!(await client.renderedDiagnostics(uri, since)).some((diagnostic) => diagnostic.code === 'missing-readiness-probe'));
    } finally {
      await client.stop();
    }
  });
});

async function eventuallyBad(client: LspClient, uri: string): Promise<Diagnostic[]> {
  for (let waited = 0; waited < 30_000; waited += 50) {
    const last = client.published.filter((params) => params.uri === uri).at(-1);
    const bad = last?.diagnostics.filter((diagnostic) => messageOf(diagnostic).includes('bad configuration')) ?? [];
    if (bad.length > 0) return bad;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no bad-configuration diagnostic');
}

describe('the language server on text typed halfway', () => {
  it('lints, finds probes and completes on every prefix of every example without throwing', () => {
    const session = new LintSession(
      new Engine(RULES, { config: {}, cluster: { podsPerNode: undefined, densePodsPerNode: 30, source: 'unknown' }, strict: false }),
    );
    for (const name of ['shop.yaml', 'payments.yaml', 'nightly-report.yaml']) {
      const text = readFileSync(join(ROOT, 'examples', name), 'utf8');
      let probesFound = 0;
      for (let cut = 0; cut <= text.length; cut++) {
        const prefix = text.slice(0, cut);
        const lint = session.lintText(name, prefix);
        if (probeAt(prefix, lint.documents, Math.max(0, cut - 1)) !== undefined) probesFound++;
        const line = prefix.slice(prefix.lastIndexOf('\n') + 1);
        ignoreCompletions(RULES, line, 0);
      }
      if (name !== 'nightly-report.yaml') assert.ok(probesFound > 0, `${name}: some prefixes end inside a probe`);
    }
  });
});

describe('the language server under a broken or hostile client', () => {
  /** A server driven byte by byte: frames written as given, what it wrote read back as JSON-RPC messages. */
  async function raw(frames: (Buffer | string)[], end: 'exit' | 'close', afterShutdown: unknown[] = []): Promise<{ code: number | null; messages: any[] }> {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [join(ROOT, 'dist/src/cli/bin.js'), 'lsp'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = Buffer.alloc(0);
    child.stdout.on('data', (chunk: Buffer) => (output = Buffer.concat([output, chunk])));
    const frame = (message: unknown) => {
      const body = Buffer.from(JSON.stringify(message));
      return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
    };
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdin.write(frame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {} } }));
    for (const piece of frames) child.stdin.write(piece);
    child.stdin.write(frame({ jsonrpc: '2.0', id: 2, method: 'shutdown' }));
    for (const message of afterShutdown) child.stdin.write(frame(message));
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (end === 'exit') child.stdin.end(frame({ jsonrpc: '2.0', method: 'exit' }));
    else child.stdin.end();
    const code = await exited;
    const messages: any[] = [];
    let text = output.toString('utf8');
    for (;;) {
      const match = /^Content-Length: (\d+)\r\n\r\n/.exec(text);
      if (match === null) break;
      const start = match[0].length;
      const body = Buffer.from(text.slice(start)).subarray(0, Number(match[1])).toString('utf8');
      messages.push(JSON.parse(body));
      text = text.slice(start + body.length);
    }
    return { code, messages };
  }

  it('answers a malformed frame with a JSON-RPC parse error and goes on answering', async () => {
    const { code, messages } = await raw(['Content-Length: abc\r\n\r\n{}', 'X-Nonsense\r\n\r\n', 'Content-Length: 99999999999\r\n\r\n'], 'exit');
    assert.equal(code, 0);
    const errors = messages.filter((message) => message.error !== undefined);
    assert.ok(errors.length >= 2, JSON.stringify(messages));
    for (const error of errors) {
      assert.equal(error.id, null);
      assert.equal(error.error.code, -32700);
    }
    assert.ok(
      messages.some((message) => message.id === 2 && 'result' in message),
      'the shutdown after them is answered',
    );
  });

  it('answers a request after shutdown with InvalidRequest, as the protocol says, and still exits 0 on exit', async () => {
    const hover = {
      jsonrpc: '2.0',
      id: 3,
      method: 'textDocument/hover',
      params: { textDocument: { uri: 'file:///x.yaml' }, position: { line: 0, character: 0 } },
    };
    const { code, messages } = await raw([], 'exit', [hover]);
    assert.equal(code, 0);
    const answer = messages.find((message) => message.id === 3);
    assert.equal(answer?.error?.code, -32600, JSON.stringify(messages));
  });

  it('exits 0 after shutdown and exit, and after shutdown and a closed stdin', async () => {
    assert.equal((await raw([], 'exit')).code, 0);
    assert.equal((await raw([], 'close')).code, 0);
  });

  it('refuses a directory opened as a document: nothing below it is rendered or linted', async () => {
    const directory = join(work, 'charts-below');
    mkdirSync(join(directory, 'chart/templates'), { recursive: true });
    writeFileSync(join(directory, 'chart/Chart.yaml'), 'apiVersion: v2\nname: c\nversion: 0.1.0\n');
    writeFileSync(join(directory, 'chart/templates/pod.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: x}]}\n');
    const client = await LspClient.start(['--helm', helmBinary()]);
    try {
      await client.open(directory, 'kind: Pod\n');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.deepEqual(
        client.published.filter((params) => params.diagnostics.length > 0),
        [],
        'no diagnostics published anywhere',
      );
      assert.ok(client.logs.some((log) => log.includes('is not linted: probe-lint lints files, and this is a directory')));
    } finally {
      await client.stop();
    }
  });
});
