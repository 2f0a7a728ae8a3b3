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
import type { Finding } from '../src/engine/finding.js';
import { collectRunFacts } from '../src/engine/run-facts.js';
import { allDocuments, LintSession, type LintUnit } from '../src/lint/index.js';
import { ROOT, throwingRule } from './helpers.js';

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

/** What a finding says and where, the same before and after it is located. */
const key = (finding: Finding) =>
  [
    finding.resource.origin.file,
    finding.resource.origin.documentIndex,
    finding.rule,
    finding.severity,
    finding.container,
    finding.pointer,
    finding.message,
  ].join(' | ');

const newSession = (rules = RULES) => new LintSession({ rules, config: {}, cluster: unknownCluster() });

describe('deployment units, parsed file by file', () => {
  it('lets a document go as its file is parsed unless a rule asked which Services select it; a Service in a later file changes the answer, and that document alone is linted again', async () => {
    const ready = DEPLOYMENT.replaceAll('web', 'ready').replace('ports:', 'readinessProbe: {tcpSocket: {port: 8080}}\n          ports:');
    const root = directory({
      'a.yaml': `${DEPLOYMENT}---\n${CONFIG_MAP('one')}---\n${DEPLOYMENT.replaceAll('web', 'api')}`,
      'b.yaml': `${CONFIG_MAP('two')}---\n${ready}`,
      'c.yaml': SERVICE,
    });
    const events: string[] = [];
    const session = watched(newSession(), events);
    let lints = 0;
    const lint = session.engine.lint.bind(session.engine);
    session.engine.lint = (...args) => {
      lints++;
      return lint(...args);
    };
    const outcome = session.lint(await session.read([root]), { minSeverity: 'info', release: true });
    assert.deepEqual(events, [
      'parsed file 1',
      'let go 0:ConfigMap',
      'parsed file 2',
      'let go 1:ConfigMap',
      'let go 1:Deployment',
      'parsed file 3',
      'let go 2:Service',
      'let go 0:Deployment',
      'let go 0:Deployment',
    ]);
    assert.equal(lints, 7, 'six documents, and web again: the Service of c.yaml selects it; api keeps its answer');
    // The Service of c.yaml sends traffic to web in a.yaml: a missing readiness probe is a warning, not a note.
    const readiness = (name: string) => outcome.findings.find((finding) => finding.rule === 'missing-readiness-probe' && finding.container === name);
    assert.equal(readiness('web')?.severity, 'warning');
    assert.match(readiness('web')!.message, /Service "web"/);
    assert.equal(readiness('api')?.severity, 'info');
    assert.equal(readiness('ready'), undefined);
  });

  it('finds what the rules find with every Service of each unit known from the start (the rules’ cases, the fixtures, the examples); rule failures come after the unit’s parse errors', async () => {
    const fixtures = ['rules', 'test/fixtures', 'examples'].map((path) => join(ROOT, path));
    const session = newSession();
    const streamed = session.lint(await session.read(fixtures), { minSeverity: 'info', release: true });
    assert.ok(streamed.findings.length > 200 && streamed.suppressed.length > 0 && streamed.inputErrors.length > 0, 'the inputs hold findings of every kind');
    // The reference: each unit parsed whole, its Services collected, then each document linted.
    const reference = newSession();
    const expected: string[] = [];
    const expectedSuppressed: string[] = [];
    for (const unit of reference.units(await reference.read(fixtures))) {
      const documents = allDocuments(unit);
      const facts = collectRunFacts(documents);
      for (const document of documents) {
        const result = reference.engine.lint([document], facts);
        expected.push(...result.findings.map(key));
        expectedSuppressed.push(...result.suppressed.map(key));
      }
    }
    assert.deepEqual(streamed.findings.map(key).sort(), expected.sort());
    assert.deepEqual(streamed.suppressed.map(key).sort(), expectedSuppressed.sort());

    // A rule that throws on the pod of the first file is listed after the YAML error of the second, as before.
    const throwing = throwingRule(['container']);
    const root = directory({ 'a.yaml': DEPLOYMENT, 'b.yaml': 'kind: ConfigMap\n  bad: [\n' });
    const errors = (session: LintSession) => session.read([root]).then((inputs) => session.lint(inputs, { minSeverity: 'info', release: true }).inputErrors);
    const failures = await errors(newSession([throwing]));
    assert.deepEqual(
      failures.map((error) => `${error.file.slice(root.length + 1)}: ${error.message.split(/ (?:of|on) /)[0]}`),
      ['b.yaml: invalid YAML: bad indentation', 'a.yaml: rule throws failed'],
    );
  });
});
