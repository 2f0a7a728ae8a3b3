// probe-lint reads manifests as kubectl and the API server do: checked against the real kubectl
// (from the test tools) and the real API server, case by case. Where the API server refuses a
// manifest for a value it cannot decode, probe-lint reports probe-field-invalid; where it accepts
// one, probe-lint reads the same values.
import assert from 'node:assert/strict';
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

async function dryRun(manifest: string, file = 'manifest.yaml'): Promise<{ accepted: boolean; stored: any; stderr: string }> {
  const run = await cluster.kubectl(['create', '--dry-run=server', '-o', 'json', '-f', '-'], { input: manifest });
  void file;
  return { accepted: run.code === 0, stored: run.code === 0 ? JSON.parse(run.stdout) : undefined, stderr: run.stderr };
}

function lint(manifest: string): { rule: string; messageId: string }[] {
  return JSON.parse(runCli(['-', '--format', 'json', '--fail-on', 'never'], { input: manifest }).stdout).findings;
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
