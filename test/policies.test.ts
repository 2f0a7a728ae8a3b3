// `probe-lint policies` without a cluster: every rule decided, the config mapped onto the
// parameters, the objects valid against the official schemas, and the chart rendering the same
// policies and parameters as the command. (test/e2e/policies.test.ts judges them on a real API server.)
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments, stringify } from 'yaml';
import { RULES } from '../rules/index.js';
import { unknownCluster } from '../src/engine/cluster-facts.js';
import { celMessagesOf } from '../src/engine/rule.js';
import { LintSession } from '../src/lint/index.js';
import type { ProbeLintConfig } from '../src/engine/config.js';
import { policyTable, webhookRules } from '../src/policies/coverage.js';
import { generatePolicies, policyDefinitions } from '../src/policies/generate.js';
import { globRegex, policyParameters } from '../src/policies/params.js';
import { runCli } from './helpers.js';
import { openApiErrors } from './openapi.js';
import { helm } from './tools.js';

const documents = (text: string): any[] =>
  parseAllDocuments(text)
    .map((document) => document.toJS())
    .filter(Boolean);

/** Admission kinds newer than the official schemas here (v1.35): MutatingAdmissionPolicy is GA in 1.36. The e2e suite has the API server check them. */
const NEWER_THAN_SCHEMAS = new Set(['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding']);

describe('admission policies', () => {
  it('decide every rule: CEL, or a reason it has none', () => {
    for (const rule of RULES) {
      const { meta } = rule;
      const policy = meta.policy;
      if ('notExpressible' in policy) {
        assert.ok(policy.notExpressible.length > 40, `${meta.id}: say why`);
        continue;
      }
      assert.ok(policy.problems(celMessagesOf(rule)).includes('['), `${meta.id}: the CEL yields a list of texts`);
    }
    const table = policyTable(RULES);
    for (const { meta } of RULES) assert.match(table, new RegExp(`\\| \`${meta.id}\` \\|`));
  });

  it('prints policies, bindings and parameters that the official schemas accept', () => {
    const run = runCli(['policies']);
    assert.equal(run.code, 0, run.stderr);
    const objects = documents(run.stdout);
    const kinds = objects.map((object) => object.kind);
    assert.deepEqual([...new Set(kinds)].sort(), [
      'ConfigMap',
      'MutatingAdmissionPolicy',
      'MutatingAdmissionPolicyBinding',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
    ]);
    assert.equal(kinds.filter((kind) => kind === 'ValidatingAdmissionPolicy').length, 2);
    for (const object of objects) {
      if (NEWER_THAN_SCHEMAS.has(object.kind)) continue;
      assert.deepEqual(openApiErrors(object), [], `${object.kind}/${object.metadata.name}`);
    }
    const json = JSON.parse(runCli(['policies', '--format', 'json', '-n', 'platform']).stdout);
    assert.equal(json.kind, 'List');
    assert.equal(json.items[0].metadata.namespace, 'platform');
  });

  it('map the config onto the parameters the policies read', () => {
    const config: ProbeLintConfig = {
      rules: {
        'missing-liveness-probe': 'warning',
        'http-probe-host': 'off',
        'timeout-not-below-period': { enabled: false },
        'exec-probe-dense-cluster': { options: { minPeriodSeconds: 30 } },
        'probe-port-not-declared': { severity: 'warning' },
      },
      cluster: { podsPerNode: 120, densePodsPerNode: 60 },
      suppression: { annotations: false, annotationRules: ['missing-liveness-probe'] },
      ignore: [
        { kind: 'Deploy*', namespace: 'legacy-?', rules: ['missing-liveness-probe'], reason: 'LEGACY-1' },
        { name: 'old', reason: 'expired', expires: '2020-01-01' },
      ],
      webhook: {
        mode: 'enforce',
        namespaceLabels: 'trusted',
        annotationsInEnforce: true,
        injectStartupProbe: true,
        fixAtAdmission: [],
        namespaces: { zeta: { mode: 'off' }, alpha: { mode: 'warn', injectStartupProbe: false } },
      },
    };
    assert.deepEqual(policyParameters(config, RULES, '2026-11-29'), {
      defaultMode: 'enforce',
      namespaceLabels: 'trusted',
      namespaceModes: 'alpha=warn,zeta=off',
      annotations: 'false',
      annotationsInEnforce: 'true',
      annotationRules: 'missing-liveness-probe',
      'severity.missing-liveness-probe': 'warning',
      'severity.http-probe-host': 'off',
      'severity.timeout-not-below-period': 'off',
      'exec-probe-dense-cluster.minPeriodSeconds': '30',
      'severity.probe-port-not-declared': 'warning',
      'inject.injectStartupProbe': 'true',
      'inject.injectStartupProbe.allowed': 'false',
      'inject.injectStartupProbe.namespaces': 'alpha=false',
      podsPerNode: '120',
      'cluster.densePodsPerNode': '60',
      ignore: 'missing-liveness-probe;^Deploy.*$;^legacy-.$;^.*$;^.*$',
    });
  });

  it('turn globs into anchored regular expressions, quoting everything else', () => {
    assert.equal(globRegex(undefined), '^.*$');
    assert.equal(globRegex('*'), '^.*$');
    assert.equal(globRegex('web-?.v1*'), '^web-.\\.v1.*$');
    assert.equal(globRegex('a(b)|c[d]'), '^a\\(b\\)\\|c\\[d\\]$');
  });

  it('are the same whatever the config: only the parameters change', () => {
    const plain = generatePolicies({}, RULES, { namespace: 'probe-lint', today: '2026-11-29' });
    const configured = generatePolicies({ webhook: { mode: 'enforce' }, rules: { 'http-probe-host': 'off' } }, RULES, {
      namespace: 'probe-lint',
      today: '2026-11-29',
    });
    const policies = (objects: Record<string, unknown>[]) => objects.filter((object) => String(object.kind).endsWith('AdmissionPolicy'));
    assert.deepEqual(policies(plain), policies(configured));
    assert.deepEqual(policies(plain), policyDefinitions(RULES));
  });

  it('leave the webhook only the rules they cannot express, when both are installed', () => {
    const alone = webhookRules(RULES, {}).map((rule) => rule.meta.id);
    const beside = webhookRules(RULES, { webhook: { coveredByPolicies: true } }).map((rule) => rule.meta.id);
    assert.equal(alone.length, RULES.length);
    assert.ok(beside.length > 0 && beside.length < alone.length);
    for (const id of beside) {
      const policy = RULES.find((rule) => rule.meta.id === id)!.meta.policy;
      assert.ok('notExpressible' in policy || (policy.unexpressed ?? []).length > 0, id);
    }
  });

  it('leave the webhook, of a rule they express in part, the messages they cannot write', () => {
    const rules = webhookRules(RULES, { webhook: { coveredByPolicies: true } });
    const session = new LintSession({ rules, config: {}, cluster: unknownCluster() });
    const deployment = (probe: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec:\n  template:\n    spec:\n      containers:\n` +
      `        - name: api\n          image: api:1\n          env: [{name: SERVER_SERVLET_CONTEXT_PATH, value: /api}]\n          livenessProbe: ${probe}\n`;
    const findings = (probe: string) =>
      session
        .lintText('api.yaml', deployment(probe))
        .findings.filter((finding) => finding.rule === 'liveness-checks-dependencies')
        .map((finding) => finding.messageId);
    // The default path is the policies' to report; a path an env variable sets and a host in a command are not.
    assert.deepEqual(findings('{httpGet: {path: /actuator/health, port: 8080}, periodSeconds: 10}'), ['configuredEndpoint']);
    assert.deepEqual(findings('{exec: {command: [pg_isready, -h, db.internal]}}'), ['execHost']);
    const envless = session.lintText('api.yaml', deployment('{httpGet: {path: /q/health, port: 8080}}').replace(/ {10}env: .*\n/, ''));
    assert.deepEqual(
      envless.findings.filter((finding) => finding.rule === 'liveness-checks-dependencies'),
      [],
    );
  });
});

describe('the chart with policies.enabled', () => {
  const renderChart = (config: ProbeLintConfig, ...values: string[]) => {
    const directory = mkdtempSync(join(tmpdir(), 'probe-lint-chart-policies-'));
    const file = join(directory, 'values.yaml');
    writeFileSync(file, stringify({ policies: { enabled: true }, config }));
    const run = helm(['template', 'probe-lint', 'charts/probe-lint', '--namespace', 'probe-lint', '--values', file, ...values]);
    assert.equal(run.code, 0, run.stderr);
    return documents(run.stdout);
  };
  const configs: [string, ProbeLintConfig][] = [
    ['the default config', {}],
    [
      'a config that sets everything the parameters carry',
      {
        rules: {
          'missing-liveness-probe': 'warning',
          'http-probe-host': { enabled: false },
          'exec-probe-dense-cluster': { severity: 'error', options: { minPeriodSeconds: 20 } },
        },
        cluster: { podsPerNode: 90 },
        suppression: { annotationRules: ['missing-readiness-probe', 'http-probe-host'] },
        ignore: [{ kind: 'Job', name: 'batch-*', container: 'side?car', rules: ['missing-liveness-probe', 'timeout-not-below-period'], reason: 'JOBS' }],
        webhook: {
          mode: 'enforce',
          fixAtAdmission: ['liveness-without-startup-probe'],
          namespaces: { prod: { mode: 'enforce', injectStartupProbe: true }, dev: { mode: 'off' } },
        },
      },
    ],
  ];
  for (const [what, config] of configs) {
    it(`renders the command's policies and, for ${what}, its parameters`, () => {
      const objects = renderChart(config);
      const expected = generatePolicies(config, RULES, { namespace: 'probe-lint', today: new Date().toISOString().slice(0, 10) });
      const parameters = (list: any[]) => list.find((object) => object.kind === 'ConfigMap' && object.metadata.name === 'probe-lint-policy').data;
      assert.deepEqual(parameters(objects), parameters(expected));
      for (const policy of policyDefinitions(RULES)) {
        const rendered = objects.find((object) => object.kind === policy.kind && object.metadata.name === (policy.metadata as { name: string }).name);
        assert.deepEqual(rendered, policy);
      }
      for (const binding of objects.filter((object) => object.kind.endsWith('PolicyBinding'))) {
        assert.deepEqual(binding.spec.paramRef, { name: 'probe-lint-policy', namespace: 'probe-lint', parameterNotFoundAction: 'Allow' });
        assert.deepEqual(binding.spec.matchResources.namespaceSelector.matchExpressions[0].values, ['kube-system', 'probe-lint']);
      }
    });
  }

  it('tells the webhook beside them to leave their rules to them, and runs without the webhook when asked', () => {
    const both = renderChart({});
    const webhookConfig = documents(
      both.find((object) => object.kind === 'ConfigMap' && object.metadata.name !== 'probe-lint-policy').data['probe-lint.yaml'],
    )[0];
    assert.equal(webhookConfig.webhook.coveredByPolicies, true);
    const alone = renderChart({}, '--set', 'webhook.enabled=false');
    assert.deepEqual([...new Set(alone.map((object) => object.kind))].sort(), [
      'ConfigMap',
      'MutatingAdmissionPolicy',
      'MutatingAdmissionPolicyBinding',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
    ]);
  });
});
