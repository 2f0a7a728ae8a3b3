// probe-lint reads manifests as kubectl and the API server do: checked against the real kubectl
// (from the test tools) and the real API server, case by case. Where the API server refuses a
// manifest for a value it cannot decode, probe-lint reports probe-field-invalid; where it accepts
// one, probe-lint reads the same values.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers.js';
import { startCluster, type Cluster } from './cluster.js';

let cluster: Cluster;
before(async () => {
  cluster = await startCluster();
});
after(async () => cluster?.stop());

function pod(name: string, probe: string, podFields = ''): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: default
spec:
${podFields}  containers:
    - name: app
      image: registry.example.com/app:1
      livenessProbe:
${probe
  .split('\n')
  .map((line) => `        ${line}`)
  .join('\n')}
`;
}

/** The API server's decision on a manifest; `text` is the object as it would be stored, unparsed (JSON numbers past 2^53 lose digits in JavaScript). */
async function dryRun(manifest: string): Promise<{ accepted: boolean; stored: any; text: string; stderr: string }> {
  const run = await cluster.kubectl(['create', '--dry-run=server', '-o', 'json', '-f', '-'], { input: manifest });
  return { accepted: run.code === 0, stored: run.code === 0 ? JSON.parse(run.stdout) : undefined, text: run.stdout, stderr: run.stderr };
}

function lint(manifest: string, config?: object): { rule: string; messageId: string }[] {
  const directory = config === undefined ? undefined : mkdtempSync(join(tmpdir(), 'probe-lint-reading-'));
  try {
    if (directory !== undefined) writeFileSync(join(directory, '.probe-lint.yaml'), JSON.stringify(config));
    const configArgs = directory === undefined ? [] : ['--config', join(directory, '.probe-lint.yaml')];
    return JSON.parse(runCli(['-', '--format', 'json', '--fail-on', 'never', ...configArgs], { input: manifest }).stdout).findings;
  } finally {
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  }
}

describe('values the API server cannot decode', () => {
  const cases: [string, string][] = [
    ['a YAML 1.1 boolean in exec.command', 'exec:\n  command: [echo, yes]'],
    ['a number beyond int32', 'tcpSocket: {port: 80}\nperiodSeconds: 4294967296'],
    ['a fraction where an int32 is', 'tcpSocket: {port: 80}\ntimeoutSeconds: 2.5'],
    ['a string where an int32 is', 'tcpSocket: {port: 80}\nfailureThreshold: "3"'],
    ['a number as a header value', 'httpGet:\n  port: 80\n  httpHeaders: [{name: X-Try, value: 3}]'],
    ['a boolean port', 'tcpSocket: {port: on}'],
  ];
  for (const [what, probe] of cases) {
    it(`${what}: the API server refuses it, and probe-lint says so`, async () => {
      const manifest = pod('undecodable', probe);
      const result = await dryRun(manifest);
      assert.equal(result.accepted, false, 'the API server refuses it');
      assert.match(result.stderr, /cannot unmarshal|unmarshal|json: cannot/);
      assert.ok(lint(manifest).some((finding) => finding.rule === 'probe-field-invalid' && finding.messageId === 'undecodable'));
    });
  }
});

describe('values read the same way', () => {
  it('YAML 1.1 numbers, booleans and merge keys as kubectl sends them', async () => {
    const manifest = `${pod('yaml11', '<<: *probe\nfailureThreshold: 6.0\nperiodSeconds: 0x1E', '  hostNetwork: yes\n')}`.replace(
      '      livenessProbe:\n',
      '      startupProbe: &probe\n        tcpSocket: {port: 0755}\n        failureThreshold: 1_000\n      livenessProbe:\n',
    );
    const result = await dryRun(manifest);
    assert.equal(result.accepted, true, result.stderr);
    const container = result.stored.spec.containers[0];
    assert.equal(result.stored.spec.hostNetwork, true);
    assert.deepEqual(container.startupProbe.tcpSocket, { port: 493 });
    assert.equal(container.startupProbe.failureThreshold, 1000);
    assert.deepEqual(container.livenessProbe.tcpSocket, { port: 493 }, 'the merge key brought the handler in');
    assert.equal(container.livenessProbe.failureThreshold, 6);
    assert.equal(container.livenessProbe.periodSeconds, 30);
    assert.deepEqual(
      lint(manifest).filter((finding) => finding.rule === 'probe-field-invalid' || finding.rule === 'probe-handler-count'),
      [],
      'probe-lint reads the same valid values',
    );
  });

  it('an empty scheme is defaulted to HTTP, not refused', async () => {
    const manifest = pod('scheme', 'httpGet: {port: 80, scheme: ""}');
    const result = await dryRun(manifest);
    assert.equal(result.accepted, true, result.stderr);
    assert.equal(result.stored.spec.containers[0].livenessProbe.httpGet.scheme, 'HTTP');
    assert.deepEqual(
      lint(manifest).filter((finding) => finding.rule === 'probe-field-invalid'),
      [],
    );
  });

  it('a gRPC probe without a port is port 0, which the API server refuses', async () => {
    const manifest = pod('grpc', 'grpc: {service: health}');
    const result = await dryRun(manifest);
    assert.equal(result.accepted, false);
    assert.match(result.stderr, /livenessProbe\.grpc\.port: Invalid value: 0: must be between 1 and 65535/);
    assert.ok(lint(manifest).some((finding) => finding.rule === 'probe-field-invalid' && finding.messageId === 'grpcPort'));
  });
});

describe('a key written twice', () => {
  it('kubectl keeps the last value without a word, YAML or JSON; the API server refuses one sent as written with strict field validation', async () => {
    const yaml = pod('dupe', 'tcpSocket: {port: 80}\nperiodSeconds: 10\nperiodSeconds: 30');
    const json = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"dupe-json","namespace":"default"},"spec":{"containers":[{"name":"app","image":"i","livenessProbe":{"tcpSocket":{"port":80},"periodSeconds":10,"periodSeconds":30}}]}}`;
    for (const manifest of [yaml, json]) {
      const result = await dryRun(manifest);
      assert.equal(result.accepted, true, result.stderr);
      assert.equal(result.stored.spec.containers[0].livenessProbe.periodSeconds, 30, 'the last value');
      assert.doesNotMatch(result.stderr, /duplicate/i, 'and not a word about the first');
      assert.ok(lint(manifest).some((finding) => finding.rule === 'duplicate-key'));
    }
    // A client that sends the JSON as written (not decoded and re-encoded, as kubectl does) with
    // fieldValidation=Strict is refused.
    const strict = await cluster.api('POST', '/api/v1/namespaces/default/pods?dryRun=All&fieldValidation=Strict', json);
    assert.equal(strict.status, 400);
    assert.match(strict.json.message, /strict decoding error: duplicate field "spec\.containers\[0\]\.livenessProbe\.periodSeconds"/);
  });
});

describe('Kubernetes 1.35–1.37, as the API server decides it', () => {
  it('reads int64 literals exactly: 2^63−1 is taken, 2^63 is refused, and probe-lint says the same', async () => {
    const largest = pod('int64-max', 'tcpSocket: {port: 80}\nterminationGracePeriodSeconds: 9223372036854775807');
    const accepted = await dryRun(largest);
    assert.equal(accepted.accepted, true, accepted.stderr);
    assert.match(accepted.text, /"terminationGracePeriodSeconds": 9223372036854775807\b/, 'stored exactly');
    assert.deepEqual(
      lint(largest).filter((finding) => finding.rule === 'probe-field-invalid'),
      [],
    );
    for (const literal of ['9223372036854775808', '-9223372036854775809', '0x8000000000000000']) {
      const past = pod('int64-past', `tcpSocket: {port: 80}\nterminationGracePeriodSeconds: ${literal}`);
      const refused = await dryRun(past);
      assert.equal(refused.accepted, false, literal);
      assert.match(refused.stderr, /cannot unmarshal number|json: cannot unmarshal/, literal);
      assert.ok(
        lint(past).some((finding) => finding.rule === 'probe-field-invalid' && finding.messageId === 'undecodable'),
        literal,
      );
    }
  });

  it('refuses, as kubectl does, a plain scalar holding "?" in a flow mapping, at its line', async () => {
    const manifest = pod('question', 'httpGet: {path: /x?local=true, port: http}');
    const kubectl = await dryRun(manifest);
    assert.equal(kubectl.accepted, false);
    assert.match(kubectl.stderr, /did not find expected ',' or '}'/);
    const run = runCli(['-', '--format', 'json'], { input: manifest });
    assert.equal(run.code, 2);
    const [error] = JSON.parse(run.stdout).inputErrors;
    assert.equal(error.line, manifest.split('\n').findIndex((line) => line.includes('/x?local')) + 1);
    assert.match(error.message, /did not find expected ',' or '}'/);
    // Quoted, both read it.
    const quoted = pod('question', 'httpGet: {path: "/x?local=true", port: 80}');
    assert.equal((await dryRun(quoted)).accepted, true);
    assert.equal(runCli(['-', '--format', 'json', '--fail-on', 'never'], { input: quoted }).code, 0);
  });

  it('accepts exec.command [""], which never runs a program: probe-lint flags it', async () => {
    const manifest = pod('empty-program', 'exec:\n  command: [""]');
    const result = await dryRun(manifest);
    assert.equal(result.accepted, true, result.stderr);
    assert.ok(lint(manifest).some((finding) => finding.rule === 'probe-field-invalid' && finding.messageId === 'emptyProgram'));
  });

  it('takes a container restartPolicy in a regular container (ContainerRestartRules, on since 1.35), and probe-lint judges that container by it', async () => {
    const manifest = `apiVersion: v1
kind: Pod
metadata: {name: per-container, namespace: default}
spec:
  restartPolicy: Never
  containers:
    - name: server
      image: registry.example.com/app:1
      restartPolicy: Always
      livenessProbe: {httpGet: {path: /healthz, port: 8080}}
      readinessProbe: {httpGet: {path: /healthz, port: 8080}}
    - name: task
      image: registry.example.com/task:1
      restartPolicy: Never
`;
    const result = await dryRun(manifest);
    assert.equal(result.accepted, true, result.stderr);
    assert.deepEqual(
      result.stored.spec.containers.map((container: any) => container.restartPolicy),
      ['Always', 'Never'],
    );
    const findings = lint(manifest) as { rule: string; container?: string }[];
    assert.ok(findings.some((finding) => finding.rule === 'liveness-mirrors-readiness' && finding.container === 'server'));
    assert.deepEqual(
      findings.filter((finding) => finding.container === 'task').map((finding) => finding.rule),
      [],
      'a container that runs once needs no probes',
    );
    const timeline = JSON.parse(runCli(['timeline', '-', '--format', 'json'], { input: manifest }).stdout).containers;
    assert.ok(timeline[0].windows.some((window: any) => window.action === 'restart'));
  });
});

describe('alpha probe fields of 1.37, with their gates off and on', () => {
  let gated: Cluster;
  before(async () => {
    gated = await startCluster({ apiServerArgs: ['--feature-gates=H2CContainerProbe=true,GRPCContainerProbeTLS=true'] });
  });
  after(async () => gated?.stop());

  const cases: { what: string; probe: string; refusedWithGates: RegExp | undefined; field: string[] }[] = [
    { what: 'protocol HTTP2', probe: 'httpGet: {path: /h, port: 8080, protocol: HTTP2}', refusedWithGates: undefined, field: ['httpGet', 'protocol'] },
    {
      what: 'protocol HTTP2 with HTTPS',
      probe: 'httpGet: {path: /h, port: 8080, scheme: HTTPS, protocol: HTTP2}',
      refusedWithGates: /is only supported with HTTP \(H2C\)/,
      field: ['httpGet', 'protocol'],
    },
    {
      what: 'protocol HTTP2 with a host',
      probe: 'httpGet: {path: /h, port: 8080, host: 10.0.0.1, protocol: HTTP2}',
      refusedWithGates: /must be empty when/,
      field: ['httpGet', 'protocol'],
    },
    {
      what: 'protocol HTTP3',
      probe: 'httpGet: {path: /h, port: 8080, protocol: HTTP3}',
      refusedWithGates: /Unsupported value: "HTTP3"/,
      field: ['httpGet', 'protocol'],
    },
    { what: 'grpc mode TLS', probe: 'grpc: {port: 9090, mode: TLS}', refusedWithGates: undefined, field: ['grpc', 'mode'] },
    { what: 'grpc mode tls', probe: 'grpc: {port: 9090, mode: tls}', refusedWithGates: /Unsupported value: "tls"/, field: ['grpc', 'mode'] },
  ];
  for (const { what, probe, refusedWithGates, field } of cases) {
    it(`${what}: gates on, the API server ${refusedWithGates ? 'refuses it and probe-lint reports an error' : 'keeps it'}; gates off, it drops the field and probe-lint reports no error`, async () => {
      const manifest = pod('gated', probe);
      // Linted as for that server: the config names the gates its clusters have on.
      const withGates = lint(manifest, { cluster: { featureGates: ['H2CContainerProbe', 'GRPCContainerProbeTLS'] } });
      const errorsWithGates = withGates.filter((finding) => finding.rule === 'probe-field-invalid');
      const on = await gated.kubectl(['create', '--dry-run=server', '-o', 'json', '-f', '-'], { input: manifest });
      if (refusedWithGates !== undefined) {
        assert.notEqual(on.code, 0);
        assert.match(on.stderr, refusedWithGates);
        assert.equal(errorsWithGates.length, 1, JSON.stringify(withGates));
      } else {
        assert.equal(on.code, 0, on.stderr);
        assert.notEqual(JSON.parse(on.stdout).spec.containers[0].livenessProbe[field[0]!][field[1]!], undefined, 'kept where the gate is on');
        assert.deepEqual(errorsWithGates, []);
      }
      assert.deepEqual(
        withGates.filter((finding) => finding.rule === 'probe-alpha-field'),
        [],
        'a gate the config says is on is not reported as gated',
      );
      const off = await dryRun(manifest);
      assert.equal(off.accepted, true, `the gate is off by default: the field is dropped, never refused (${off.stderr})`);
      assert.equal(off.stored.spec.containers[0].livenessProbe[field[0]!][field[1]!], undefined, 'dropped');
      // Linted as for the default server: no error for a value it never validates.
      const withoutGates = lint(manifest);
      assert.deepEqual(
        withoutGates.filter((finding) => finding.rule === 'probe-field-invalid'),
        [],
        'the field is dropped before validation: nothing to refuse',
      );
    });
  }
});
