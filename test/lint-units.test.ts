// A deployment unit is parsed file by file as the lint reaches it: a document without pods is linted
// and let go before the next file is parsed, a document with pods waits for the unit's last
// Service. What the lint reports must be what it reported when every file of the unit was parsed first.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { RULES } from '../rules/index.js';
import { unknownCluster } from '../src/engine/cluster-facts.js';
import { defineRule } from '../src/engine/rule.js';
import { allDocuments, LintSession, type LintUnit } from '../src/lint/index.js';
import { mayHoldPodSites } from '../src/model/pod-site.js';
import { ROOT } from './helpers.js';

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: web:1
          ports: [{containerPort: 8080}]
`;
const CONFIG_MAP = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {a: b}\n`;
const SERVICE = `apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n`;

function directory(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'probe-lint-units-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return root;
}

/** The session's units, each with what happened to it told to `events`: a file parsed, a document let go (by its kinds). */
function watched(session: LintSession, events: string[]): LintSession {
  const units = session.units.bind(session);
  session.units = function* (inputs, release) {
    for (const unit of units(inputs, release)) {
      const parseNext = unit.parseNext!;
      const forget = unit.forget!;
      let parsed = 0;
      unit.parseNext = () => {
        const more = parseNext();
        if (more) events.push(`parsed file ${++parsed}`);
        return more;
      };
      unit.forget = (index) => {
        events.push(`let go ${unit.fileOrder![index]}:${kindsOf(unitDocumentKinds.get(unit)![index]!)}`);
        forget(index);
      };
      // The kinds of each document, noted as the unit grows (the lint replaces a document it lets go).
      const kinds: string[][] = [];
      unitDocumentKinds.set(unit, kinds);
      const push = unit.documents.push.bind(unit.documents);
      unit.documents.push = (...documents) => {
        for (const document of documents) kinds.push(document.resources.map((resource) => resource.object.kind));
        return push(...documents);
      };
      yield unit;
    }
  };
  return session;
}
const unitDocumentKinds = new WeakMap<LintUnit, string[][]>();
const kindsOf = (kinds: string[]) => kinds.join('+');

/** The same session, every unit parsed whole before it is linted (as the lint did before it streamed). */
function parsedFirst(session: LintSession): LintSession {
  const units = session.units.bind(session);
  session.units = function* (inputs, release) {
    for (const unit of units(inputs, release)) {
      allDocuments(unit);
      yield unit;
    }
  };
  return session;
}

const newSession = (rules = RULES) => new LintSession({ rules, config: {}, cluster: unknownCluster() });

describe('deployment units, parsed file by file', () => {
  it('lets a document without pods go before the next file is parsed; a document with pods waits for a Service in a later file, which still selects it', async () => {
    const root = directory({ 'a.yaml': `${DEPLOYMENT}---\n${CONFIG_MAP('one')}`, 'b.yaml': CONFIG_MAP('two'), 'c.yaml': SERVICE });
    const events: string[] = [];
    const session = watched(newSession(), events);
    const outcome = session.lint(await session.read([root]), { minSeverity: 'info', release: true });
    assert.deepEqual(events, [
      'parsed file 1',
      'let go 0:ConfigMap',
      'parsed file 2',
      'let go 1:ConfigMap',
      'parsed file 3',
      'let go 2:Service',
      'let go 0:Deployment',
    ]);
    // The Service of c.yaml sends traffic to the Deployment of a.yaml: a missing readiness probe is a warning, not a note.
    const readiness = outcome.findings.find((finding) => finding.rule === 'missing-readiness-probe');
    assert.equal(readiness?.severity, 'warning');
    assert.match(readiness.message, /Service "web"/);
  });

  it('reports what it reported when each unit was parsed whole first: the rules’ cases and the test fixtures, and rule failures after the unit’s parse errors', async () => {
    const fixtures = ['rules', 'test/fixtures', 'examples'].map((path) => join(ROOT, path));
    const streamed = newSession().lint(await newSession().read(fixtures), { minSeverity: 'info', release: true });
    const whole = parsedFirst(newSession());
    const before = whole.lint(await whole.read(fixtures), { minSeverity: 'info', release: true });
    assert.ok(streamed.findings.length > 200 && streamed.suppressed.length > 0 && streamed.inputErrors.length > 0, 'the inputs hold findings of every kind');
    assert.deepEqual(streamed.findings, before.findings);
    assert.deepEqual(streamed.suppressed, before.suppressed);
    assert.deepEqual(streamed.inputErrors, before.inputErrors);
    assert.deepEqual(streamed.counts, before.counts);
    assert.equal(streamed.hidden, before.hidden);

    // A rule that throws on the pod of the first file is listed after the YAML error of the second, as before.
    const throwing = defineRule({
      meta: {
        id: 'throws',
        severity: 'warning',
        summary: 't',
        remediation: 't',
        scope: { roles: ['container'] },
        policy: { notExpressible: 't' },
        messages: { m: { short: 'm', long: 'm' } },
      },
      checkContainer() {
        throw new Error('boom');
      },
    });
    const root = directory({ 'a.yaml': DEPLOYMENT, 'b.yaml': 'kind: ConfigMap\n  bad: [\n' });
    const errors = (session: LintSession) => session.read([root]).then((inputs) => session.lint(inputs, { minSeverity: 'info', release: true }).inputErrors);
    const failures = await errors(newSession([throwing]));
    assert.deepEqual(
      failures.map((error) => `${error.file.slice(root.length + 1)}: ${error.message.split(/ (?:of|on) /)[0]}`),
      ['b.yaml: invalid YAML: bad indentation', 'a.yaml: rule throws failed'],
    );
    assert.deepEqual(failures, await errors(parsedFirst(newSession([throwing]))));
  });

  it('says a kind may hold pods unless it is a Kubernetes kind that is no workload', () => {
    const object = (apiVersion: string, kind: string) => ({ apiVersion, kind });
    for (const [apiVersion, kind] of [
      ['apps/v1', 'Deployment'],
      ['v1', 'Pod'],
      ['batch/v1', 'CronJob'],
      ['v1', 'DeploymentConfig'],
      ['apps.openshift.io/v1', 'DeploymentConfig'],
      ['argoproj.io/v1alpha1', 'Rollout'],
      ['monitoring.coreos.com/v1', 'ServiceMonitor'],
    ])
      assert.equal(mayHoldPodSites(object(apiVersion!, kind!)), true, `${apiVersion} ${kind}`);
    for (const [apiVersion, kind] of [
      ['v1', 'Service'],
      ['v1', 'ConfigMap'],
      ['apiextensions.k8s.io/v1', 'CustomResourceDefinition'],
      ['rbac.authorization.k8s.io/v1', 'ClusterRole'],
      ['networking.k8s.io/v1', 'Ingress'],
    ])
      assert.equal(mayHoldPodSites(object(apiVersion!, kind!)), false, `${apiVersion} ${kind}`);
  });
});
