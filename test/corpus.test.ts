// The CLI over ../shared/corpus/real: 2,186 real files from public projects (see its SOURCES.md).
// Almost all of it was deployed, so every error is suspect: each one below was checked by hand
// against the API server's validation (../shared/reference) and is a true finding.
import assert from 'node:assert/strict';
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { runCli, SHARED } from './helpers.js';

const CORPUS = join(SHARED, 'corpus/real');

/** file → errors as rule@line, reviewed by hand. */
const REVIEWED_ERRORS: [string, string[]][] = [
  // prometheus-couchdb-exporter: initialDelaySeconds indented under httpGet in both probes, where the
  // API server drops it (strict validation refuses the object): the probes have no delay.
  ['helm-stable-charts/rendered/stable/prometheus-couchdb-exporter.yaml', ['probe-field-unknown@147', 'probe-field-unknown@152']],
  // mongodb-replicaset (also vendored by cloudserver and graylog): startupProbe.successThreshold: 2,
  // which the API server rejects ("must be 1") — the chart is archived.
  // inference-pool-variables.yaml: an envsubst template (${VAR:-default}) linted before substitution;
  // as written the API server rejects every one of these fields.
  ['helm-stable-charts/rendered/stable/cloudserver.yaml', ['success-threshold-not-one@1107']],
  ['helm-stable-charts/rendered/stable/graylog.yaml', ['success-threshold-not-one@1436']],
  ['helm-stable-charts/rendered/stable/mongodb-replicaset.yaml', ['success-threshold-not-one@572']],
  [
    'kubernetes-engine-samples/ai-ml/infw-gw/examples/getting-started/inference-pool-variables.yaml',
    ['grpc-named-port@86', 'probe-field-invalid@88', 'probe-field-invalid@89', 'grpc-named-port@92', 'probe-field-invalid@94', 'probe-field-invalid@95'],
  ],
];

/**
 * Keys written twice: the 17 files SOURCES.md lists as DUPLICATE_KEY for a strict parser (archived
 * Helm charts that render a key twice, hand-written manifests with a repeated block). kubectl keeps
 * the last value silently, so these are warnings (duplicate-key).
 */
const REVIEWED_DUPLICATE_KEYS: [string, string[]][] = [
  ['helm-stable-charts/rendered/incubator/druid.yaml', ['duplicate-key@171', 'duplicate-key@172', 'duplicate-key@173', 'duplicate-key@174']],
  ['helm-stable-charts/rendered/incubator/etcd.yaml', ['duplicate-key@8']],
  ['helm-stable-charts/rendered/incubator/goldfish.yaml', ['duplicate-key@93']],
  ['helm-stable-charts/rendered/incubator/mysqlha.yaml', ['duplicate-key@105']],
  ['helm-stable-charts/rendered/stable/collabora-code.yaml', ['duplicate-key@118', 'duplicate-key@129']],
  ['helm-stable-charts/rendered/stable/hazelcast.yaml', ['duplicate-key@248']],
  ['helm-stable-charts/rendered/stable/kured.yaml', ['duplicate-key@153']],
  ['helm-stable-charts/rendered/stable/prometheus-snmp-exporter.yaml', ['duplicate-key@113']],
  [
    'helm-stable-charts/rendered/stable/rethinkdb.yaml',
    ['duplicate-key@286', 'duplicate-key@289', 'duplicate-key@290', 'duplicate-key@291', 'duplicate-key@292', 'duplicate-key@293'],
  ],
  ['kubernetes-engine-samples/streaming/kafka-confluent/manifests/05-replicator/my-target-cluster.yaml', ['duplicate-key@135']],
  ['kubernetes-engine-samples/streaming/kafka-confluent/manifests/05-replicator/replicator.yaml', ['duplicate-key@31']],
  ['kubernetes-engine-samples/streaming/kafka-confluent/manifests/06-confluent-platform/platform.yaml', ['duplicate-key@36']],
  ['kubernetes-examples/_archived/openshift-origin/etcd-controller.yaml', ['duplicate-key@12']],
  ['kubernetes-examples/_archived/openshift-origin/etcd-discovery-controller.yaml', ['duplicate-key@12']],
  ['kubernetes-examples/_archived/openshift-origin/openshift-controller.yaml', ['duplicate-key@12']],
  ['kubernetes-examples/_archived/persistent-volume-provisioning/quobyte/quobyte-admin-secret.yaml', ['duplicate-key@9']],
  ['kubernetes-examples/_archived/volumes/scaleio/sc-pvc.yaml', ['duplicate-key@12']],
];

function makeWritable(path: string): void {
  chmodSync(path, statSync(path).isDirectory() ? 0o755 : 0o644);
  if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) makeWritable(join(path, entry));
}

function manifestFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return manifestFiles(path);
    return /\.(ya?ml|json)$/i.test(entry.name) ? [path] : [];
  });
}

describe(
  'real-world corpus',
  { skip: existsSync(CORPUS) ? false : `the real-world corpus ${CORPUS} lives beside the checkout only (CI has it); not present here` },
  () => {
    it('lints every file without a crash, an input error or a rule failure', () => {
      const run = runCli([CORPUS, '--format', 'json', '--fail-on', 'never']);
      assert.equal(run.stderr, '');
      assert.equal(run.code, 0);
      const output = JSON.parse(run.stdout);
      assert.equal(output.summary.files, manifestFiles(CORPUS).length);
      assert.deepEqual(output.inputErrors, []);

      const byFile = (keep: (finding: { severity: string; rule: string }) => boolean) => {
        const found = new Map<string, string[]>();
        for (const finding of output.findings.filter(keep)) {
          const file = relative(CORPUS, finding.file);
          found.set(file, [...(found.get(file) ?? []), `${finding.rule}@${finding.line}`]);
        }
        return [...found].sort();
      };
      assert.deepEqual(
        byFile((finding) => finding.severity === 'error'),
        [...REVIEWED_ERRORS].sort(),
      );
      assert.deepEqual(
        byFile((finding) => finding.rule === 'duplicate-key'),
        [...REVIEWED_DUPLICATE_KEYS].sort(),
      );
      assert.ok(
        output.findings.every((finding: { line: number | null }) => typeof finding.line === 'number' && finding.line >= 1),
        'every finding has a line',
      );
    });

    it('--fix applies every fix to a copy without a layout problem, and a second run changes nothing', () => {
      const copy = mkdtempSync(join(tmpdir(), 'probe-lint-corpus-'));
      try {
        cpSync(CORPUS, copy, { recursive: true });
        // The corpus is shipped read-only, and --fix refuses read-only files: the copy is ours to edit.
        makeWritable(copy);
        const first = runCli(['--fix', '--fix-type', 'fix,suggestion', copy, '--format', 'json', '--fail-on', 'never']);
        assert.equal(first.code, 0, first.stderr.slice(0, 2000));
        const [summaryLine] = first.stderr.split('\n');
        const fixed = Number(/fixed (\d+) problems/.exec(summaryLine!)?.[1]);
        assert.ok(fixed > 500, summaryLine);
        const report = JSON.parse(first.stderr.slice(first.stderr.indexOf('{')));
        assert.deepEqual(report.inputErrors, []);
        for (const rule of ['readiness-termination-grace-period', 'success-threshold-not-one']) {
          assert.ok(!report.findings.some((finding: { rule: string }) => finding.rule === rule), `${rule} left after --fix`);
        }
        const second = runCli(['--fix', '--fix-type', 'fix,suggestion', copy, '--format', 'json', '--fail-on', 'never']);
        assert.match(second.stderr, /^probe-lint: fixed 0 problems in 0 files\n/);
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    });
  },
);
