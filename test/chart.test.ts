// charts/probe-lint with the real Helm binary: lint, render, schema-check every object, TLS, and
// probe-lint's own verdict on the rendered chart.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { helm } from './tools.js';
import { runCli } from './helpers.js';
import { openApiErrors } from './openapi.js';

const CHART = 'charts/probe-lint';
/** Custom resources of other projects (cert-manager, the Prometheus Operator): no official schema; helm lint checks them. */
const KINDS_WITHOUT_OFFICIAL_SCHEMA = new Set(['Certificate', 'Issuer', 'ServiceMonitor']);

function render(...args: string[]): { objects: any[]; text: string } {
  const run = helm(['template', 'probe-lint', CHART, '--namespace', 'probe-lint', ...args]);
  assert.equal(run.code, 0, run.stderr);
  const objects = parseAllDocuments(run.stdout)
    .map((document) => document.toJS())
    .filter(Boolean);
  return { objects, text: run.stdout };
}

function byKind(objects: any[], kind: string): any[] {
  return objects.filter((object) => object.kind === kind);
}

describe('Helm chart', () => {
  it('passes helm lint --strict', () => {
    const run = helm(['lint', '--strict', CHART]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  for (const [label, args] of [
    ['default values', []],
    ['cert-manager', ['--set', 'certManager.enabled=true']],
    [
      'every option on',
      [
        '--set',
        'serviceMonitor.enabled=true',
        '--set',
        'networkPolicy.enabled=true',
        '--set',
        'config.webhook.mutateTemplates=true',
        '--set',
        'webhook.failurePolicy=Fail',
        '--set',
        'auditReports.enabled=true',
      ],
    ],
  ] as [string, string[]][]) {
    it(`renders with ${label}; every object with an official schema validates against it`, () => {
      const { objects } = render(...args);
      const unchecked = new Set<string>();
      for (const object of objects) {
        if (KINDS_WITHOUT_OFFICIAL_SCHEMA.has(object.kind)) {
          unchecked.add(object.kind);
          continue;
        }
        assert.deepEqual(openApiErrors(object), [], `${object.kind}/${object.metadata.name}`);
      }
      for (const kind of unchecked) assert.ok(KINDS_WITHOUT_OFFICIAL_SCHEMA.has(kind));
      assert.ok(byKind(objects, 'Deployment').length === 1 && byKind(objects, 'ValidatingWebhookConfiguration').length === 1);
    });
  }

  it('runs a hardened, spread, disruption-protected webhook with least-privilege RBAC', () => {
    const { objects } = render();
    const [deployment] = byKind(objects, 'Deployment');
    const pod = deployment.spec.template.spec;
    const [container] = pod.containers;
    assert.equal(deployment.spec.replicas, 2);
    // Required spread over nodes when there are enough of them (with one node, both replicas run there).
    assert.deepEqual(pod.topologySpreadConstraints, [
      {
        maxSkew: 1,
        topologyKey: 'kubernetes.io/hostname',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'probe-lint', 'app.kubernetes.io/instance': 'probe-lint' } },
      },
    ]);
    // A preStop pause while the endpoint is removed, and a grace period longer than pause plus shutdown.
    assert.deepEqual(container.lifecycle.preStop.exec.command, ['sleep', '5']);
    assert.ok(pod.terminationGracePeriodSeconds > 5 + 20, String(pod.terminationGracePeriodSeconds));
    assert.equal(byKind(objects, 'NetworkPolicy').length, 1, 'a NetworkPolicy by default');
    // The kubelet probes a plain-HTTP health port: no TLS handshake to wait for behind queued reviews.
    assert.ok(container.args.includes('--health-port=8081'), container.args.join(' '));
    assert.deepEqual(container.ports, [
      { name: 'https', containerPort: 8443, protocol: 'TCP' },
      { name: 'health', containerPort: 8081, protocol: 'TCP' },
    ]);
    for (const type of ['startupProbe', 'livenessProbe', 'readinessProbe'])
      assert.deepEqual({ port: container[type].httpGet.port, scheme: container[type].httpGet.scheme }, { port: 'health', scheme: 'HTTP' }, type);
    assert.deepEqual(byKind(objects, 'NetworkPolicy')[0].spec.ingress[0].ports, [
      { port: 8443, protocol: 'TCP' },
      { port: 8081, protocol: 'TCP' },
    ]);
    assert.deepEqual(pod.securityContext.seccompProfile, { type: 'RuntimeDefault' });
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.ok(Number.isInteger(pod.securityContext.runAsUser) && pod.securityContext.runAsUser > 0);
    assert.deepEqual(container.securityContext, {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    });
    assert.ok(container.resources.requests.cpu && container.resources.requests.memory && container.resources.limits.memory);
    assert.equal(byKind(objects, 'PodDisruptionBudget')[0].spec.minAvailable, 1);
    const [role] = byKind(objects, 'ClusterRole');
    assert.deepEqual(role.rules, [
      { apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['list'] },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['list', 'watch'] },
    ]);
    const [auditRole] = byKind(render('--set', 'rbac.audit=true').objects, 'ClusterRole');
    assert.deepEqual(auditRole.rules.slice(2), [
      { apiGroups: [''], resources: ['services'], verbs: ['list'] },
      { apiGroups: ['apps'], resources: ['deployments', 'statefulsets', 'daemonsets'], verbs: ['list'] },
      { apiGroups: ['batch'], resources: ['jobs', 'cronjobs'], verbs: ['list'] },
      { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['list'] },
    ]);
  });

  it('registers both webhooks as the API server expects, excluding kube-system, its own namespace, and mode=off only when labels are trusted', () => {
    const { objects } = render('--set', 'webhook.timeoutSeconds=3');
    for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
      const [configuration] = byKind(objects, kind);
      const [webhook] = configuration.webhooks;
      assert.deepEqual(webhook.admissionReviewVersions, ['v1']);
      assert.equal(webhook.sideEffects, 'None');
      assert.equal(webhook.failurePolicy, 'Ignore');
      assert.equal(webhook.timeoutSeconds, 3);
      assert.deepEqual(webhook.namespaceSelector.matchExpressions, [
        { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system', 'probe-lint'] },
      ]);
      const [trusted] = byKind(render('--set', 'config.webhook.namespaceLabels=trusted').objects, kind)[0].webhooks;
      assert.deepEqual(trusted.namespaceSelector.matchExpressions, [
        { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system', 'probe-lint'] },
        { key: 'probe-lint.dev/mode', operator: 'NotIn', values: ['off'] },
      ]);
      assert.equal(webhook.clientConfig.service.path, kind.startsWith('Validating') ? '/validate' : '/mutate');
    }
    const [mutating] = byKind(objects, 'MutatingWebhookConfiguration')[0].webhooks;
    assert.equal(mutating.reinvocationPolicy, 'IfNeeded');
    assert.deepEqual(mutating.rules, [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], operations: ['CREATE'], scope: 'Namespaced' }]);
    const validatingResources = byKind(objects, 'ValidatingWebhookConfiguration')[0]
      .webhooks[0].rules.flatMap((rule: any) => rule.resources)
      .sort();
    assert.deepEqual(validatingResources, [
      'cronjobs',
      'daemonsets',
      'deployments',
      'jobs',
      'pods',
      'podtemplates',
      'replicasets',
      'replicationcontrollers',
      'statefulsets',
    ]);
  });

  it('generates a CA and a serving certificate for the Service, and puts that CA in both caBundles', () => {
    const { objects } = render();
    const [secret] = byKind(objects, 'Secret');
    const ca = new X509Certificate(Buffer.from(secret.data['ca.crt'], 'base64'));
    const serving = new X509Certificate(Buffer.from(secret.data['tls.crt'], 'base64'));
    assert.ok(ca.ca);
    assert.ok(serving.verify(ca.publicKey), 'the serving certificate is signed by the CA');
    assert.match(serving.subjectAltName ?? '', /DNS:probe-lint\.probe-lint\.svc\b/);
    for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
      assert.equal(byKind(objects, kind)[0].webhooks[0].clientConfig.caBundle, secret.data['ca.crt'], kind);
    }
  });

  it('with cert-manager, issues the certificate there and lets its injector fill the caBundle', () => {
    const { objects } = render('--set', 'certManager.enabled=true');
    assert.equal(byKind(objects, 'Secret').length, 0);
    assert.deepEqual(
      byKind(objects, 'Certificate')
        .map((certificate) => certificate.spec.secretName)
        .sort(),
      ['probe-lint-ca', 'probe-lint-tls'],
    );
    for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
      const [configuration] = byKind(objects, kind);
      assert.equal(configuration.metadata.annotations['cert-manager.io/inject-ca-from'], 'probe-lint/probe-lint');
      assert.equal(configuration.webhooks[0].clientConfig.caBundle, undefined);
    }
  });

  const badValues: [string, string[], RegExp][] = [
    ['an unknown failurePolicy', ['--set', 'webhook.failurePolicy=Sometimes'], /\/webhook\/failurePolicy': value must be one of 'Ignore', 'Fail'/],
    ['a timeout the API server rejects', ['--set', 'webhook.timeoutSeconds=31'], /\/webhook\/timeoutSeconds': maximum: got 31, want 30/],
    ['zero replicas', ['--set', 'replicaCount=0'], /\/replicaCount': minimum: got 0, want 1/],
    ['a misspelled key', ['--set', 'certmanager.enabled=true'], /additional properties 'certmanager' not allowed/],
  ];
  for (const [what, args, message] of badValues) {
    it(`refuses ${what} with a clear message`, () => {
      const run = helm(['template', 'probe-lint', CHART, ...args]);
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, message);
    });
  }

  it('reads an unquoted `mode: off` (a YAML 1.1 boolean to Helm) as the mode off', () => {
    const directory = mkdtempSync(join(tmpdir(), 'probe-lint-chart-'));
    writeFileSync(join(directory, 'values.yaml'), 'config:\n  webhook:\n    mode: off\n    namespaces:\n      legacy:\n        mode: off\n');
    const { objects } = render('--values', join(directory, 'values.yaml'));
    const config = parseAllDocuments(byKind(objects, 'ConfigMap')[0].data['probe-lint.yaml'])[0]!.toJS();
    assert.deepEqual(config.webhook, { mode: 'off', injectStartupProbe: false, mutateTemplates: false, namespaces: { legacy: { mode: 'off' } } });
    const written = join(directory, 'probe-lint.yaml');
    writeFileSync(written, byKind(objects, 'ConfigMap')[0].data['probe-lint.yaml']);
    assert.equal(runCli(['policies', '--config', written]).code, 0, 'the webhook reads the same file without a complaint');
  });

  it('runs audit on a schedule only when asked, writing the reports of the kind asked, with an account of its own and only what it needs', () => {
    assert.deepEqual(byKind(render().objects, 'CronJob'), []);
    for (const [kind, group, resources] of [
      ['policyreport', 'wgpolicyk8s.io', ['policyreports', 'clusterpolicyreports']],
      ['openreports', 'openreports.io', ['reports', 'clusterreports']],
    ] as const) {
      const { objects } = render('--set', 'auditReports.enabled=true', '--set', `auditReports.kind=${kind}`, '--set', 'auditReports.since=2h');
      const [cronJob] = byKind(objects, 'CronJob');
      assert.equal(cronJob.spec.concurrencyPolicy, 'Forbid');
      const pod = cronJob.spec.jobTemplate.spec.template.spec;
      assert.equal(pod.serviceAccountName, 'probe-lint-audit');
      assert.deepEqual(pod.containers[0].args, ['audit', '--all-namespaces', `--apply-reports=${kind}`, '--since=2h', '--format=compact', '--fail-on=never']);
      assert.equal(pod.containers[0].securityContext.readOnlyRootFilesystem, true);
      const role = byKind(objects, 'ClusterRole').find((candidate) => candidate.metadata.name === 'probe-lint-audit');
      assert.deepEqual(role.rules.at(-1), { apiGroups: [group], resources, verbs: ['list', 'create', 'patch', 'delete'] });
      assert.ok(role.rules.every((rule: { verbs: string[] }) => !rule.verbs.includes('*') && !rule.verbs.includes('get') && !rule.verbs.includes('watch')));
      const [binding] = byKind(objects, 'ClusterRoleBinding').filter((candidate) => candidate.metadata.name === 'probe-lint-audit');
      assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'probe-lint-audit', namespace: 'probe-lint' }]);
    }
    const refused = helm(['template', 'probe-lint', CHART, '--set', 'auditReports.kind=sarif']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /auditReports/);
  });

  it('gives no probe-lint findings at all when its rendered output is linted', () => {
    for (const args of [[], ['--set', 'certManager.enabled=true']]) {
      const { text } = render(...args);
      const run = runCli(['-', '--format', 'json', '--fail-on', 'info'], { input: text });
      const output = JSON.parse(run.stdout);
      assert.deepEqual(output.findings, []);
      assert.equal(output.summary.containers, 1);
      assert.equal(run.code, 0);
    }
  });
});

describe('the official schemas the tests validate against', () => {
  const deployment = (container: Record<string, unknown>) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1', ...container }] } },
    },
  });

  it('accept a valid object, and reject an unknown field and a wrong type, naming where', () => {
    assert.deepEqual(openApiErrors(deployment({ livenessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 } })), []);
    assert.deepEqual(openApiErrors(deployment({ livenessProbe: { httpGet: { path: '/', port: 8080 }, periodSecond: 5 } })), [
      '/spec/template/spec/containers/0/livenessProbe must NOT have additional properties (periodSecond)',
    ]);
    assert.deepEqual(openApiErrors(deployment({ livenessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 'ten' } })), [
      '/spec/template/spec/containers/0/livenessProbe/periodSeconds must be integer',
    ]);
  });
});
