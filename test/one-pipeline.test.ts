// Every door reads inputs through the one lint session: `lint`, `timeline`, the language server and
// `audit` see the same objects and containers, and refuse the same inputs, for a directory that mixes
// every kind of input and for stdin.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { AUDITED_COLLECTIONS, FakeApiServer } from './fake-apiserver.js';
import { runCli, runCliAsync } from './helpers.js';
import { LspClient } from './lsp-client.js';
import { makeTestPki } from './tls.js';
import { helmBinary, kubectlBinary } from './tools.js';

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: web:1
          ports: [{name: http, containerPort: 8080}]
          livenessProbe: {httpGet: {path: /healthz, port: http}}
          readinessProbe: {httpGet: {path: /healthz, port: http}}
        - name: sidecar
          image: proxy:1
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {selector: {app: web}, ports: [{port: 80, targetPort: http}]}
`;
const LIST = JSON.stringify({
  apiVersion: 'v1',
  kind: 'List',
  items: [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'debug', namespace: 'shop' },
      spec: { containers: [{ name: 'shell', image: 'busybox', livenessProbe: { tcpSocket: { port: 22 }, timeoutSeconds: 10 } }] },
    },
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'migrate', namespace: 'shop' },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'migrate', image: 'migrate:1' }] } } },
    },
  ],
});
const ROLLOUT = `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: canary, namespace: shop}
spec:
  template:
    spec:
      containers:
        - name: canary
          image: canary:1
          readinessProbe: {exec: {command: [cat, /tmp/ready]}, periodSeconds: 2}
`;
const TEMPLATE_OUTSIDE_A_CHART = `apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}
spec:
  containers:
    - name: app
      image: app:1
`;
const MKDOCS = `site_name: docs
markdown_extensions:
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
`;
const CHART = {
  'Chart.yaml': 'apiVersion: v2\nname: shop\nversion: 0.1.0\n',
  'values.yaml': 'replicas: 1\n',
  'templates/deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: {name: {{ .Release.Name }}-api, namespace: shop}
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
        - name: api
          image: api:1
          livenessProbe: {httpGet: {path: /live, port: 8080}, timeoutSeconds: 10}
`,
};
const OVERLAY = {
  'kustomization.yaml': 'resources: [worker.yaml]\nnamespace: jobs\n',
  'worker.yaml': `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: worker}
spec:
  serviceName: worker
  selector: {matchLabels: {app: worker}}
  template:
    metadata: {labels: {app: worker}}
    spec:
      containers:
        - name: worker
          image: worker:1
          readinessProbe: {tcpSocket: {port: 9000}, timeoutSeconds: 20}
`,
};

/** Writes `files` (relative path → text) under `root`. */
function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

let work: string;
let tools: string[];
before(() => {
  work = mkdtempSync(join(tmpdir(), 'probe-lint-one-pipeline-'));
  tools = ['--helm', helmBinary(), '--kustomize', kubectlBinary()];
  write(join(work, 'repo'), {
    'plain/deploy.yaml': DEPLOYMENT,
    'plain/list.json': LIST,
    'plain/rollout.yaml': ROLLOUT,
    'plain/empty.yaml': '',
    'plain/pod.yaml': TEMPLATE_OUTSIDE_A_CHART,
    'plain/mkdocs.yml': MKDOCS,
    ...Object.fromEntries(Object.entries(CHART).map(([path, text]) => [`chart/${path}`, text])),
    ...Object.fromEntries(Object.entries(OVERLAY).map(([path, text]) => [`overlay/${path}`, text])),
  });
});

interface Seen {
  /** file  Kind/namespace/name  container, for every probed container. */
  containers: string[];
  /** file: message, for every input refused. */
  refused: string[];
}

/** What `lint` saw: the objects with pod specs and their containers (JUnit lists every object), and its input errors. */
function lintSaw(args: string[], input?: string): Seen {
  const junit = runCli([...args, '--format', 'junit', '--fail-on', 'never', ...tools], { cwd: work, ...(input !== undefined ? { input } : {}) });
  const json = runCli([...args, '--format', 'json', '--fail-on', 'never', ...tools], { cwd: work, ...(input !== undefined ? { input } : {}) });
  const output = JSON.parse(json.stdout) as { inputErrors: { file: string; message: string }[]; summary: { resources: number; containers: number } };
  const objects = [...junit.stdout.matchAll(/<testcase classname="([^"]*)" name="([^":]*): /g)].map((match) => `${match[1]}  ${match[2]}`);
  return { containers: [...new Set(objects)].sort(), refused: output.inputErrors.map((error) => `${error.file}: ${error.message}`).sort() };
}

/** What `timeline` saw: every probed container, and the inputs it refused (on stderr). */
function timelineSaw(args: string[], input?: string): Seen & { objects: string[] } {
  const run = runCli(['timeline', ...args, '--format', 'json', ...tools], { cwd: work, ...(input !== undefined ? { input } : {}) });
  const containers = (JSON.parse(run.stdout) as { containers: { file: string | null; resource: string; container: string }[] }).containers;
  const refused = [...run.stderr.matchAll(/^probe-lint: (.+?)(?::\d+:\d+)?: (.+)$/gm)].map((match) => `${match[1]}: ${match[2]}`).sort();
  return {
    objects: [...new Set(containers.map((entry) => `${entry.file ?? '-'}  ${entry.resource}`))].sort(),
    containers: containers.map((entry) => `${entry.file ?? '-'}  ${entry.resource}  ${entry.container}`).sort(),
    refused,
  };
}

describe('one pipeline for every command', () => {
  it('lint and timeline see the same objects and refuse the same inputs in a mixed directory', () => {
    const lint = lintSaw(['repo']);
    const timeline = timelineSaw(['repo']);
    assert.deepEqual(timeline.objects, lint.containers, 'the same objects, each under the file the user edits');
    assert.deepEqual(timeline.refused, lint.refused);
    assert.deepEqual(lint.refused, [
      'repo/plain/pod.yaml: looks like a Go template ({{ … }}), not YAML: lint the chart it belongs to (the directory with Chart.yaml), or render it first (helm template CHART | probe-lint -)',
    ]);
    // Every kind of input is there: plain files, a JSON List, a custom resource, a chart, a kustomization.
    assert.deepEqual(timeline.containers, [
      'repo/chart/templates/deployment.yaml  Deployment/shop/release-name-api  api',
      'repo/overlay/worker.yaml  StatefulSet/jobs/worker  worker',
      'repo/plain/deploy.yaml  Deployment/shop/web  sidecar',
      'repo/plain/deploy.yaml  Deployment/shop/web  web',
      'repo/plain/list.json  Job/shop/migrate  migrate',
      'repo/plain/list.json  Pod/shop/debug  shell',
      'repo/plain/rollout.yaml  Rollout/shop/canary  canary',
    ]);
  });

  it('lint and timeline read stdin alike: a template is refused by both, a stream of objects is read by both', () => {
    const template = { lint: lintSaw(['-'], TEMPLATE_OUTSIDE_A_CHART), timeline: timelineSaw(['-'], TEMPLATE_OUTSIDE_A_CHART) };
    assert.deepEqual(template.timeline.refused, template.lint.refused);
    assert.equal(template.lint.refused.length, 1);
    assert.match(template.lint.refused[0]!, /^-: looks like a Go template/);
    assert.deepEqual(template.timeline.containers, []);
    const stream = { lint: lintSaw(['-'], DEPLOYMENT), timeline: timelineSaw(['-'], DEPLOYMENT) };
    assert.deepEqual(stream.timeline.objects, stream.lint.containers);
    assert.deepEqual(stream.lint.refused, []);
    assert.deepEqual(stream.timeline.refused, []);
  });

  it('the language server refuses what lint refuses and reports what lint reports on each plain file', async () => {
    const client = await LspClient.start([], { cwd: work });
    try {
      const lint = JSON.parse(runCli(['repo/plain', '--format', 'json', '--fail-on', 'never'], { cwd: work }).stdout) as {
        findings: { file: string; line: number; rule: string }[];
        inputErrors: { file: string; message: string }[];
      };
      for (const name of ['deploy.yaml', 'list.json', 'rollout.yaml', 'empty.yaml', 'pod.yaml', 'mkdocs.yml']) {
        const file = `repo/plain/${name}`;
        const diagnostics = await client.diagnostics(await client.open(join(work, file)));
        const findings = diagnostics.filter(
          (diagnostic) => diagnostic.source === 'probe-lint' && typeof diagnostic.code === 'string' && diagnostic.code !== 'input',
        );
        assert.deepEqual(
          findings.map((diagnostic) => `${diagnostic.range.start.line + 1} ${String(diagnostic.code)}`).sort(),
          lint.findings
            .filter((finding) => finding.file === file)
            .map((finding) => `${finding.line} ${finding.rule}`)
            .sort(),
          file,
        );
        const refused = diagnostics.filter((diagnostic) => !findings.includes(diagnostic)).map((diagnostic) => diagnostic.message);
        assert.deepEqual(
          refused,
          lint.inputErrors.filter((error) => error.file === file).map((error) => error.message),
          `${file}: the same input errors`,
        );
      }
    } finally {
      await client.stop();
    }
  });

  describe('audit', () => {
    const pki = makeTestPki();
    const api = new FakeApiServer(pki);
    before(() => api.start());
    after(() => api.stop());

    it('sees the objects of a cluster as lint sees them in files: the same findings on the same containers', async () => {
      const objects = [...parseAllDocuments(DEPLOYMENT).map((document) => document.toJS()), ...JSON.parse(LIST).items];
      const byPath: Record<string, unknown[]> = {};
      for (const object of objects) {
        const path =
          object.kind === 'Deployment'
            ? '/apis/apps/v1/deployments'
            : object.kind === 'Job'
              ? '/apis/batch/v1/jobs'
              : object.kind === 'Pod'
                ? '/api/v1/pods'
                : '/api/v1/services';
        (byPath[path] ??= []).push(object);
      }
      for (const path of [...AUDITED_COLLECTIONS, '/api/v1/nodes']) api.set(path, (byPath[path] ?? []) as Record<string, unknown>[]);
      const kubeconfig = api.kubeconfig(work);
      const audit = await runCliAsync([
        'audit',
        '--kubeconfig',
        kubeconfig,
        '-A',
        '--no-evidence',
        '--format',
        'json',
        '--fail-on',
        'never',
        '--pods-per-node',
        '10',
      ]);
      assert.equal(audit.code, 0, audit.stderr);
      const lint = runCli(['-', '--format', 'json', '--fail-on', 'never', '--pods-per-node', '10'], { cwd: work, input: `${DEPLOYMENT}---\n${LIST}\n` });
      const key = (finding: { rule: string; message: string; container: string | null; resource: { kind: string; namespace?: string; name?: string } }) =>
        `${finding.resource.kind}/${finding.resource.namespace}/${finding.resource.name} ${finding.container} ${finding.rule}: ${finding.message}`;
      const audited = JSON.parse(audit.stdout);
      const linted = JSON.parse(lint.stdout);
      assert.deepEqual(audited.findings.map(key).sort(), linted.findings.map(key).sort());
      assert.equal(audited.summary.containers, linted.summary.containers);
      assert.equal(audited.summary.resources, linted.summary.resources);
    });
  });
});
