// The rules as admission policies (`probe-lint policies`), judged by the real API server: it accepts
// them (CEL type-checked), and what they report equals what the engine reports, object by object and
// rule by rule, over the objects written for parity, every rule fixture and every pod-bearing object
// of the real corpus (where it is beside the checkout); they deny in enforce mode, inject startup probes into real Pods, honour suppression annotations, and
// follow their parameters without being re-applied.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { RULES } from '../../rules/index.js';
import type { ProbeLintConfig } from '../../src/engine/config.js';
import { unknownCluster, type ClusterFacts } from '../../src/engine/cluster-facts.js';
import { Engine } from '../../src/engine/engine.js';
import { generatePolicies } from '../../src/policies/generate.js';
import { lintDocumentsOf } from '../../src/source/parse/documents.js';
import { SourceFile } from '../../src/source/parse/source-file.js';
import { eventually } from '../helpers.js';
import {
  assertOwnStrength,
  COVERED,
  engineFindings,
  engineRules,
  PARITY_CONFIG,
  parityObjects,
  auditTexts,
  policyMessage,
  RESOURCES,
} from '../policy-parity.js';
import { startCluster, type Cluster } from './cluster.js';

const PARAMS_NAMESPACE = 'probe-lint';
let cluster: Cluster;

async function applyPolicies(config: ProbeLintConfig): Promise<void> {
  const objects = generatePolicies(config, RULES, { namespace: PARAMS_NAMESPACE, today: new Date().toISOString().slice(0, 10) });
  const applied = await cluster.kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], {
    input: objects.map((object) => stringify(object)).join('---\n'),
  });
  assert.equal(applied.code, 0, applied.stderr);
}

/** A namespace, once its default ServiceAccount exists (Pods are refused before that). */
async function namespace(name: string, labels: Record<string, string> = {}): Promise<void> {
  await cluster.api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
  await eventually(
    `the ServiceAccount of ${name}`,
    async () => ((await cluster.api('GET', `/api/v1/namespaces/${name}/serviceaccounts/default`)).status === 200 ? true : undefined),
    30_000,
  );
}

/** Creates `object` in `ns` (a dry run unless `persist`); the rule ids of the policies' warnings, or why it was refused. */
async function create(
  object: any,
  ns: string,
  persist = false,
): Promise<{ status: number; rules: string[]; policyMessages: string[]; message: string; stored: any }> {
  const path = RESOURCES[object.kind]!.replace('NS', ns) + (persist ? '' : '?dryRun=All');
  const reply = await cluster.api('POST', path, { ...object, metadata: { ...object.metadata, namespace: ns } });
  const warning = reply.headers.warning;
  const warnings = typeof warning === 'string' ? warning : Array.isArray(warning) ? warning.join(', ') : '';
  const rules = [...new Set([...warnings.matchAll(/\[([a-z][a-z-]+)\]/g)].map((match) => match[1]!))].sort();
  // Each policy's message, as its warning carries it (the API server writes one warning header per policy;
  // its own warnings, a duplicate port or an unknown field, are not the policies').
  const policyMessages = warningTexts(warnings).flatMap(
    (text) => /^Validation failed for ValidatingAdmissionPolicy '[^']+' with binding '[^']+': ([\s\S]*)$/.exec(text)?.[1] ?? [],
  );
  return {
    status: reply.status,
    rules,
    policyMessages,
    message: reply.status >= 300 ? String(reply.json?.message ?? reply.json) : warnings,
    stored: reply.json,
  };
}

/** The texts of warning headers, `299 - "text"` each (RFC 7234 §5.5: quotes and backslashes escaped), however Node joined them. */
function warningTexts(headers: string): string[] {
  // The API server writes the text's UTF-8 bytes; Node reads header bytes as Latin-1.
  return [...headers.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)].map((match) => Buffer.from(match[1]!.replace(/\\(.)/g, '$1'), 'latin1').toString('utf8'));
}

// The API server's audit log, to see what the policies record there (Metadata level keeps annotations).
const auditDirectory = mkdtempSync(join(tmpdir(), 'probe-lint-e2e-audit-'));
const AUDIT_LOG = join(auditDirectory, 'audit.log');

/** The audit annotations of the API server's event for creating the Pod `name`, once it is written. */
function auditAnnotationsOf(name: string): Promise<Record<string, string>> {
  return eventually(
    `the audit event of ${name}`,
    () => {
      if (!existsSync(AUDIT_LOG)) return undefined;
      const event = readFileSync(AUDIT_LOG, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { verb: string; stage: string; objectRef?: { name?: string }; annotations?: Record<string, string> })
        .find((candidate) => candidate.verb === 'create' && candidate.stage === 'ResponseComplete' && candidate.objectRef?.name === name);
      return event?.annotations;
    },
    20_000,
  );
}

before(async () => {
  const auditPolicy = join(auditDirectory, 'policy.yaml');
  writeFileSync(
    auditPolicy,
    'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n  - level: Metadata\n    resources: [{group: "", resources: ["pods"]}]\n  - level: None\n',
  );
  cluster = await startCluster({ apiServerArgs: ['--audit-policy-file', auditPolicy, '--audit-log-path', AUDIT_LOG, '--audit-log-mode', 'blocking'] });
  await namespace(PARAMS_NAMESPACE);
  await namespace('parity');
  await namespace('strict');
  await namespace('quiet');
  await namespace('injected', { 'probe-lint.dev/inject-startup-probe': 'true' });
  await namespace('labelled-enforce', { 'probe-lint.dev/mode': 'enforce' });
  await namespace('labelled-off', { 'probe-lint.dev/mode': 'off' });
  await applyPolicies(PARITY_CONFIG);
  // Policies and their parameters reach the admission plugin through informers.
  await eventually(
    'the policies to act',
    async () =>
      (await create(podWith({ livenessProbe: { tcpSocket: { port: 80 }, timeoutSeconds: 10 } }), 'parity')).rules.includes('timeout-not-below-period')
        ? true
        : undefined,
    30_000,
  );
});
after(async () => cluster?.stop());

function podWith(probes: Record<string, unknown>, annotations: Record<string, string> = {}, ports: unknown[] = []): any {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `pod-${Math.random().toString(36).slice(2, 8)}`, annotations },
    spec: { containers: [{ name: 'web', image: 'registry.example.com/web:1', ports, readinessProbe: { httpGet: { path: '/ready', port: 8080 } }, ...probes }] },
  };
}

describe('admission policies', () => {
  it('are accepted by the API server, every CEL expression type-checked without a warning', async () => {
    const policies = await cluster.api('GET', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies');
    assert.equal(policies.json.items.length, 2);
    for (const policy of policies.json.items) {
      assert.deepEqual(policy.status?.typeChecking?.expressionWarnings ?? [], [], `${policy.metadata.name}: ${JSON.stringify(policy.status)}`);
    }
    const mutating = await cluster.api('GET', '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies');
    assert.deepEqual(
      mutating.json.items.map((policy: any) => policy.metadata.name),
      ['probe-lint-liveness-without-startup-probe'],
    );
  });

  it('report what the engine reports, object by object and rule by rule, on every object written for parity, fixture and corpus object', async () => {
    const facts: ClusterFacts = { ...unknownCluster(), podsPerNode: 80, source: 'config' };
    const objects = parityObjects();
    const tally = { objects: objects.length, refused: 0, findings: 0, matching: 0, differences: [] as string[] };
    const refusals = new Map<string, number>();
    const own = new Map<string, number>();
    let next = 0;
    const worker = async () => {
      while (next < objects.length) {
        const index = next++;
        const { from, object } = objects[index]!;
        const expected = engineRules(object, PARITY_CONFIG, facts);
        const result = await create(object, 'parity');
        if (result.status >= 300) {
          // Refused before the policies ran: by decoding or validation (the engine's error rules say why, or the object is broken otherwise).
          tally.refused++;
          const reason = result.message.replace(/"[^"]*"/g, '""').slice(0, 60);
          refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
          continue;
        }
        tally.findings += expected.length;
        if (objects[index]!.own) for (const rule of expected) own.set(rule, (own.get(rule) ?? 0) + 1);
        tally.matching += expected.filter((rule) => result.rules.includes(rule)).length;
        // The words too: the warning is the engine's short messages, rule by rule and container by container.
        const message = policyMessage(engineFindings(object, PARITY_CONFIG, facts), ['error', 'warning']);
        const shown = result.policyMessages.join('\n');
        if (expected.join() !== result.rules.join() || shown !== message) tally.differences.push(`${from}:\n  engine   ${message}\n  policies ${shown}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    console.log(
      `policy parity: ${tally.objects} objects, ${tally.refused} refused by the API server before admission policies, ` +
        `${tally.findings} engine findings in covered rules, ${tally.matching} reported by the policies, ${tally.differences.length} objects differ`,
    );
    for (const [reason, count] of [...refusals].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`  refused ${count}×: ${reason}`);
    assertOwnStrength(own);
    assert.deepEqual(tally.differences, []);
  });

  it('deny errors in an enforce namespace and only warn on warnings there; do nothing where the mode is off', async () => {
    const undeclared = podWith({ livenessProbe: { tcpSocket: { port: 'metrics' } } });
    const denied = await create(undeclared, 'strict');
    assert.equal(denied.status, 422);
    assert.match(denied.message, /\[probe-port-not-declared\] container "web": livenessProbe\.tcpSocket\.port "metrics" is not a declared port/);
    const warned = await create(podWith({ livenessProbe: { tcpSocket: { port: 80 }, timeoutSeconds: 10 } }), 'strict');
    assert.equal(warned.status, 201);
    assert.deepEqual(warned.rules, ['timeout-not-below-period']);
    const off = await create(undeclared, 'quiet');
    assert.equal(off.status, 201);
    assert.deepEqual(off.rules, []);
    // The namespace label may tighten the default (warn) but not loosen it (webhook.namespaceLabels: tighten-only).
    assert.equal((await create(undeclared, 'labelled-enforce')).status, 422);
    const labelledOff = await create(undeclared, 'labelled-off');
    assert.equal(labelledOff.status, 201);
    assert.deepEqual(labelledOff.rules, ['probe-port-not-declared']);
  });

  it('record every finding in the audit log, one annotation per rule, where the API server keeps one validation failure', async () => {
    // No liveness probe, no readiness probe, and a startup timeout at the period: three findings of
    // one request (the parity config makes the two infos warnings; the audit policy annotates infos alike).
    const pod = podWith({ readinessProbe: undefined, startupProbe: { tcpSocket: { port: 80 }, timeoutSeconds: 10 } });
    const persisted = await create(pod, 'parity', true);
    assert.equal(persisted.status, 201, persisted.message);
    const annotations = await auditAnnotationsOf(pod.metadata.name);
    const byRule = (rule: string) => Object.entries(annotations).find(([key]) => /^probe-lint-[a-z-]+\//.test(key) && key.endsWith(`/${rule}`))?.[1] ?? '';
    assert.match(byRule('missing-liveness-probe'), /container "web": /);
    assert.match(byRule('missing-readiness-probe'), /container "web": /);
    assert.match(byRule('timeout-not-below-period'), /container "web": startupProbe/);
    const failures = Object.keys(annotations).filter((key) => key.startsWith('validation.policy.admission.k8s.io/'));
    assert.ok(failures.length <= 1, `the API server's own record keeps one validation failure: ${failures.join(', ')}`);
    // The engine finds the same rules on the same object.
    const engine = new Engine(RULES, { config: PARITY_CONFIG, cluster: { ...unknownCluster(), podsPerNode: 80, source: 'config' } });
    const found = engine.lint(lintDocumentsOf(new SourceFile('pod.json', JSON.stringify(pod)))).findings.map((finding) => finding.rule);
    const annotated = Object.keys(annotations)
      .filter((key) => /^probe-lint-[a-z-]+\//.test(key))
      .map((key) => key.split('/')[1]!);
    assert.deepEqual([...new Set(annotated)].sort(), [...new Set(found.filter((rule) => COVERED.has(rule)))].sort());
  });

  it('honour the object’s ignore annotations in warn mode, and not for a denial in enforce mode', async () => {
    const slow = { livenessProbe: { tcpSocket: { port: 80 }, timeoutSeconds: 10 } };
    assert.deepEqual((await create(podWith(slow, { 'probe-lint.dev/ignore': 'timeout-not-below-period # vendor image' }), 'parity')).rules, []);
    assert.deepEqual((await create(podWith(slow, { 'probe-lint.dev/ignore.web': '*' }), 'parity')).rules, []);
    assert.deepEqual((await create(podWith(slow, { 'probe-lint.dev/ignore.other': '*' }), 'parity')).rules, ['timeout-not-below-period']);
    const undeclared = podWith({ livenessProbe: { tcpSocket: { port: 'metrics' } } }, { 'probe-lint.dev/ignore': '*' });
    assert.equal((await create(undeclared, 'strict')).status, 422);
  });

  it('inject the engine’s startup probe into a real Pod where the namespace opts in, and record it', async () => {
    const pod = podWith({ livenessProbe: { httpGet: { path: '/livez', port: 8080 }, initialDelaySeconds: 90, periodSeconds: 15 } });
    const created = await create(pod, 'injected', true);
    assert.equal(created.status, 201, created.message);
    const stored = (await cluster.api('GET', `/api/v1/namespaces/injected/pods/${pod.metadata.name}`)).json;
    const container = stored.spec.containers[0];
    // The engine's fix for the same Pod, as the webhook would apply it.
    const engine = new Engine(RULES, { config: {}, cluster: unknownCluster() });
    const finding = engine
      .lint(lintDocumentsOf(new SourceFile('pod.json', JSON.stringify(pod))))
      .findings.find((candidate) => candidate.rule === 'liveness-without-startup-probe')!;
    const startup = finding.fix!.find((operation) => operation.path.endsWith('/startupProbe')) as { value: any };
    assert.deepEqual(
      { ...container.startupProbe, httpGet: { path: container.startupProbe.httpGet.path, port: container.startupProbe.httpGet.port } },
      // The API server defaults what the fix leaves out (timeoutSeconds 1, successThreshold 1).
      { timeoutSeconds: 1, successThreshold: 1, ...startup.value, httpGet: { path: '/livez', port: 8080 } },
    );
    assert.equal(container.livenessProbe.initialDelaySeconds ?? 0, 0);
    assert.equal(stored.metadata.annotations['probe-lint.dev/injected'], 'liveness-without-startup-probe:web');
    // Not where the namespace does not opt in.
    const plain = await create(podWith({ livenessProbe: { httpGet: { path: '/livez', port: 8080 }, initialDelaySeconds: 90 } }), 'parity', true);
    assert.equal(plain.stored.spec.containers[0].startupProbe, undefined);
  });

  it('leave an UPDATE alone when the pod template did not change, and report one that changes it', async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'legacy' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'legacy' } },
        template: { metadata: { labels: { app: 'legacy' } }, spec: podWith({ livenessProbe: { tcpSocket: { port: 80 }, timeoutSeconds: 10 } }).spec },
      },
    };
    const created = await create(deployment, 'parity', true);
    assert.deepEqual(created.rules, ['timeout-not-below-period']);
    const path = `/apis/apps/v1/namespaces/parity/deployments/legacy`;
    const scaled = await cluster.api('PATCH', path, { spec: { replicas: 3 } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(scaled.status, 200);
    assert.equal(scaled.headers.warning, undefined, 'scaling a legacy Deployment is not reported again');
    const image = { spec: { template: { spec: { containers: [{ name: 'web', image: 'registry.example.com/web:2' }] } } } };
    const changed = await cluster.api('PATCH', path, image, { 'content-type': 'application/strategic-merge-patch+json' });
    assert.match(String(changed.headers.warning), /\[timeout-not-below-period\]/);
  });

  it('follow a change of their parameters without being applied again', async () => {
    const slow = podWith({ livenessProbe: { tcpSocket: { port: 80 }, timeoutSeconds: 10 } });
    assert.equal((await create(slow, 'parity')).status, 201);
    const patched = await cluster.api(
      'PATCH',
      `/api/v1/namespaces/${PARAMS_NAMESPACE}/configmaps/probe-lint-policy`,
      { data: { defaultMode: 'enforce', 'severity.timeout-not-below-period': 'error' } },
      { 'content-type': 'application/merge-patch+json' },
    );
    assert.equal(patched.status, 200);
    await eventually('the new parameters', async () => ((await create(slow, 'parity')).status === 422 ? true : undefined), 30_000);
    // A config exemption, carried by the parameters as a regular expression per glob.
    await cluster.api(
      'PATCH',
      `/api/v1/namespaces/${PARAMS_NAMESPACE}/configmaps/probe-lint-policy`,
      { data: { ignore: 'timeout-not-below-period;^Pod$;^par.*$;^.*$;^web$' } },
      { 'content-type': 'application/merge-patch+json' },
    );
    await eventually('the exemption', async () => ((await create(slow, 'parity')).status === 201 ? true : undefined), 30_000);
    await cluster.api(
      'PATCH',
      `/api/v1/namespaces/${PARAMS_NAMESPACE}/configmaps/probe-lint-policy`,
      { data: { defaultMode: 'warn', 'severity.timeout-not-below-period': null, ignore: null } },
      { 'content-type': 'application/merge-patch+json' },
    );
    await eventually('the parameters restored', async () => ((await create(slow, 'parity')).status === 201 ? true : undefined), 30_000);
  });

  it('write an object’s infos to the audit log even when it has nothing worse, in the engine’s words', async () => {
    // The default config: infos stay infos, and without podsPerNode a frequent exec probe is an info too.
    await applyPolicies({});
    const infosOnly = podWith({ readinessProbe: { exec: { command: ['/bin/ready'] }, periodSeconds: 2 } });
    const withWarning = podWith({ livenessProbe: { tcpSocket: { port: 80 }, timeoutSeconds: 10 } });
    await eventually(
      'the default parameters',
      async () => ((await create(withWarning, 'parity')).rules.join() === 'timeout-not-below-period' ? true : undefined),
      30_000,
    );
    for (const pod of [infosOnly, withWarning]) {
      const persisted = await create(pod, 'parity', true);
      assert.equal(persisted.status, 201, persisted.message);
      const findings = engineFindings(pod, {}, unknownCluster());
      const expected = Object.fromEntries(auditTexts(findings));
      const annotations = await auditAnnotationsOf(pod.metadata.name);
      const annotated = Object.fromEntries(
        Object.entries(annotations)
          .filter(([key]) => key.startsWith('probe-lint-warn/'))
          .map(([key, value]) => [key.slice('probe-lint-warn/'.length), value]),
      );
      assert.deepEqual(annotated, expected);
      if (pod === infosOnly) {
        assert.ok(findings.length >= 2 && findings.every((finding) => finding.severity === 'info'), 'only infos');
        assert.equal(persisted.policyMessages.length, 0, 'infos are never shown as warnings');
      }
    }
    await applyPolicies(PARITY_CONFIG);
  });
});
