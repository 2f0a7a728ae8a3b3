// Configuration, severities and suppression, through the real engine.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../src/engine/config.js';
import { loadConfigFile, parseConfig } from '../src/engine/config-file.js';
import { RULES } from '../rules/index.js';
import { unknownCluster } from '../src/engine/cluster-facts.js';
import { Engine, ruleFailureMessage } from '../src/engine/engine.js';
import { defineRule } from '../src/engine/rule.js';
import { deploymentScope, RunFacts, selectingService } from '../src/engine/run-facts.js';
import { lintDocumentsOf } from '../src/source/parse/documents.js';
import { SourceFile } from '../src/source/parse/source-file.js';
import { lintText, podYaml, throwingRule } from './helpers.js';

const mirrored = podYaml('livenessProbe:\n  httpGet:\n    port: 80\nreadinessProbe:\n  httpGet:\n    port: 80');

describe('configuration', () => {
  it('turns rules off and overrides severities', () => {
    const before = lintText(mirrored).findings.map((finding) => `${finding.rule}:${finding.severity}`);
    assert.deepEqual(before, ['liveness-mirrors-readiness:warning']);
    const config = parseConfig('rules:\n  liveness-mirrors-readiness: error\n', 'c.yaml');
    assert.deepEqual(
      lintText(mirrored, { config }).findings.map((finding) => `${finding.rule}:${finding.severity}`),
      ['liveness-mirrors-readiness:error'],
    );
    assert.deepEqual(lintText(mirrored, { config: parseConfig('rules:\n  liveness-mirrors-readiness: "off"\n', 'c.yaml') }).findings, []);
    assert.deepEqual(lintText(mirrored, { config: parseConfig('rules:\n  liveness-mirrors-readiness: {enabled: false}\n', 'c.yaml') }).findings, []);
  });

  it("lets a configured severity beat the one a rule reports for a case (a selected pod's missing readiness is a warning)", () => {
    const selected = `apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n---\n${podYaml('livenessProbe:\n  tcpSocket:\n    port: 80').replace('metadata:', 'metadata:\n  labels: {app: web}')}`;
    const severities = (config: string | undefined) =>
      lintText(selected, config === undefined ? {} : { config: parseConfig(config, 'c.yaml') }).findings.map(
        (finding) => `${finding.rule}:${finding.severity}`,
      );
    assert.deepEqual(severities(undefined), ['missing-readiness-probe:warning']);
    assert.deepEqual(severities('rules:\n  missing-readiness-probe: info\n'), ['missing-readiness-probe:info']);
    assert.deepEqual(severities('rules:\n  missing-readiness-probe: {severity: error}\n'), ['missing-readiness-probe:error']);
  });

  it('passes rule options', () => {
    const slowStart = podYaml('livenessProbe:\n  tcpSocket:\n    port: 80\n  initialDelaySeconds: 20\nreadinessProbe:\n  tcpSocket:\n    port: 81');
    assert.deepEqual(lintText(slowStart).findings, []);
    const config = parseConfig('rules:\n  liveness-without-startup-probe:\n    options:\n      minInitialDelaySeconds: 15\n', 'c.yaml');
    assert.deepEqual(
      lintText(slowStart, { config }).findings.map((finding) => finding.rule),
      ['liveness-without-startup-probe'],
    );
  });

  const bad: [string, string, RegExp][] = [
    ['an unknown rule', 'rules:\n  timeout-below-period: error\n', /c\.yaml:2:3: rules\.timeout-below-period: unknown rule "timeout-below-period"/],
    [
      'a wrong severity',
      'rules:\n  timeout-not-below-period: fatal\n',
      /c\.yaml:2:29: rules\.timeout-not-below-period: must be one of "off", "error", "warning", "info"/,
    ],
    [
      'a wrong option type',
      'rules:\n  exec-probe-dense-cluster:\n    options:\n      minPeriodSeconds: soon\n',
      /c\.yaml:4:25: rules\.exec-probe-dense-cluster\.options\.minPeriodSeconds: must be integer/,
    ],
    [
      'an unknown option',
      'rules:\n  exec-probe-dense-cluster:\n    options:\n      minPeriod: 5\n',
      /c\.yaml:4:7: rules\.exec-probe-dense-cluster\.options\.minPeriod: unknown option \(did you mean "minPeriodSeconds"\?\); exec-probe-dense-cluster has: minPeriodSeconds/,
    ],
    [
      'an unknown top-level key',
      'rule:\n  x: y\n',
      /c\.yaml:1:1: rule: unknown key \(did you mean "rules"\?\); allowed here: rules, cluster, exclude, inputErrors, baseline, ignore, suppression, webhook/,
    ],
    [
      'an ignore entry without a reason',
      'ignore:\n  - kind: Deployment\n',
      /c\.yaml:2:5: ignore\.0: must have "reason" \(every exemption says why it exists\)/,
    ],
    [
      'a bad expiry date',
      'ignore:\n  - reason: legacy\n    expires: next week\n',
      /c\.yaml:3:14: ignore\.0\.expires: must be a date written YYYY-MM-DD \(e\.g\. 2027-03-31\)$/,
    ],
    ['invalid YAML', 'rules: [\n', /c\.yaml:\d+:\d+: invalid YAML/],
    [
      'options on a rule that has none',
      'rules:\n  duplicate-key:\n    options: {x: 1}\n',
      /c\.yaml:3:5: rules\.duplicate-key\.options: rule duplicate-key has no options; remove "options"/,
    ],
    [
      'a typo in a rule id',
      'rules:\n  timout-not-below-period: error\n',
      /unknown rule "timout-not-below-period" \(did you mean "timeout-not-below-period"\?\)/,
    ],
    [
      "a typo in an ignore entry's rule",
      'ignore:\n  - rules: [liveness-mirror-readiness]\n    reason: r\n',
      /ignore\.0\.rules\.0: "liveness-mirror-readiness" is not one of the \d+ allowed values \(did you mean "liveness-mirrors-readiness"\?\)/,
    ],
    [
      'a wrong severity inside a rule setting object',
      'rules:\n  liveness-mirrors-readiness: {severity: bad}\n',
      /^c\.yaml:2:42: rules\.liveness-mirrors-readiness\.severity: must be one of "error", "warning", "info"$/,
    ],
    [
      'a wrong type inside a rule setting object',
      'rules:\n  liveness-mirrors-readiness: {enabled: maybe}\n',
      /^c\.yaml:2:41: rules\.liveness-mirrors-readiness\.enabled: must be boolean$/,
    ],
    [
      'a glob holding what no name can',
      'ignore:\n  - name: "web;*"\n    reason: r\n',
      /^c\.yaml:2:11: ignore\.0\.name: a glob holds only letters, digits, "\.", "-", "\*" and "\?", as Kubernetes names and kinds do \(got "web;\*"\)$/,
    ],
    [
      'a namespace key that is no namespace name',
      'webhook:\n  namespaces:\n    Prod: {mode: enforce}\n',
      /^c\.yaml:3:5: webhook\.namespaces: "Prod" is not a namespace name \(lowercase letters, digits and "-", at most 63\)$/,
    ],
    [
      'an unknown key inside a section, not a rule',
      'webhook:\n  mdoe: warn\n',
      /^c\.yaml:2:3: webhook\.mdoe: unknown key \(did you mean "mode"\?\); allowed here: mode, namespaceLabels, annotationsInEnforce, /,
    ],
    [
      'an unknown key in a rule setting object',
      'rules:\n  exec-probe-dense-cluster:\n    option: {minPeriodSeconds: 5}\n',
      /^c\.yaml:3:5: rules\.exec-probe-dense-cluster\.option: unknown key \(did you mean "options"\?\); allowed here: enabled, severity, options$/,
    ],
    [
      'an unknown key in a section holding a key named options',
      'cluster:\n  guard:\n    options: {}\n',
      /^c\.yaml:3:5: cluster\.guard\.options: unknown key; allowed here: deadlineSeconds, backoffInitialSeconds, backoffMaxSeconds, failureThreshold, openSeconds$/,
    ],
    [
      'an unknown key in an ignore entry',
      'ignore:\n  - reason: r\n    nmae: web\n',
      /^c\.yaml:3:5: ignore\.0\.nmae: unknown key \(did you mean "name"\?\); allowed here: kind, namespace, name, container, rules, reason, expires$/,
    ],
    [
      'an unknown key in a namespace of the webhook',
      'webhook:\n  namespaces:\n    prod: {mdoe: warn}\n',
      /^c\.yaml:3:12: webhook\.namespaces\.prod\.mdoe: unknown key \(did you mean "mode"\?\); allowed here: mode, /,
    ],
    ['a config that is not a mapping', '- rules\n', /^c\.yaml:1:1: \(top level\): must be object$/],
    ['a key written twice', 'rules:\n  duplicate-key: off\n  duplicate-key: error\n', /^c\.yaml:3:3: invalid YAML: Map keys must be unique/],
    [
      'a wrong value under a namespace whose name ends in digits',
      'webhook:\n  namespaces:\n    ns9: {mode: loud}\n',
      /^c\.yaml:3:17: webhook\.namespaces\.ns9\.mode: must be one of "enforce", "warn", "off"$/,
    ],
    [
      'a wrong value under a namespace whose name starts with digits',
      'webhook:\n  namespaces:\n    9lives: {mode: loud}\n',
      /^c\.yaml:3:20: webhook\.namespaces\.9lives\.mode: must be one of "enforce", "warn", "off"$/,
    ],
    [
      'a wrong value in the eleventh ignore entry',
      `ignore:\n${'  - {reason: r}\n'.repeat(10)}  - {reason: r, expires: soon}\n`,
      /^c\.yaml:12:26: ignore\.10\.expires: must be a date written YYYY-MM-DD/,
    ],
    [
      'an unknown key in the eleventh ignore entry (its keys are found through the list)',
      `ignore:\n${'  - {reason: r}\n'.repeat(10)}  - {reason: r, nmae: web}\n`,
      /^c\.yaml:12:17: ignore\.10\.nmae: unknown key \(did you mean "name"\?\); allowed here: kind, namespace, name, container, rules, reason, expires$/,
    ],
    [
      'an unknown option of a rule that has options',
      'rules:\n  exec-probe-dense-cluster:\n    options: {minPeriodSecond: 5}\n',
      /^c\.yaml:3:15: rules\.exec-probe-dense-cluster\.options\.minPeriodSecond: unknown option \(did you mean "minPeriodSeconds"\?\); exec-probe-dense-cluster has: minPeriodSeconds$/,
    ],
    [
      'options on a rule that has none',
      'rules:\n  duplicate-key:\n    options: {strict: true}\n',
      /^c\.yaml:3:5: rules\.duplicate-key\.options: rule duplicate-key has no options; remove "options"$/,
    ],
    [
      'a number that is neither whole nor in range (the bound is named)',
      'rules:\n  exec-probe-dense-cluster:\n    options: {minPeriodSeconds: 0.5}\n',
      /^c\.yaml:3:33: rules\.exec-probe-dense-cluster\.options\.minPeriodSeconds: must be >= 1$/,
    ],
    [
      'a rule setting that is neither a severity nor an object',
      'rules:\n  duplicate-key: 5\n',
      /^c\.yaml:2:18: rules\.duplicate-key: must be one of "off", "error", "warning", "info"$/,
    ],
    [
      'an exclude pattern starting with "/"',
      'exclude: [/etc]\n',
      /^c\.yaml:1:11: exclude\.0: an exclude pattern is relative to the config file's directory, so it cannot start with "\/" \(got "\/etc"\)$/,
    ],
    [
      'an alias bomb',
      'a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nrules: {}\n',
      /c\.yaml: cannot use the config file: .*alias/i,
    ],
  ];
  it('reads an empty file, or one of comments only, as no configuration', () => {
    assert.deepEqual(parseConfig('', 'c.yaml'), {});
    assert.deepEqual(parseConfig('# nothing yet\n', 'c.yaml'), {});
  });

  it('says every wrong field, one line each, in the order written', () => {
    assert.throws(
      () => parseConfig('rules:\n  timout-not-below-period: error\ncluster:\n  podsPerNode: -1\n', 'c.yaml'),
      (error: unknown) =>
        error instanceof ConfigError &&
        /^c\.yaml:2:3: rules\.timout-not-below-period: unknown rule .*\nc\.yaml:4:16: cluster\.podsPerNode: must be > 0$/.test(error.message),
    );
  });

  it('says both when an exemption lacks its reason and has a wrong key', () => {
    assert.throws(
      () => parseConfig('ignore:\n  - rule: web\n', 'c.yaml'),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message ===
          'c.yaml:2:5: ignore.0: must have "reason" (every exemption says why it exists)\n' +
            'c.yaml:2:5: ignore.0.rule: unknown key (did you mean "rules"?); allowed here: kind, namespace, name, container, rules, reason, expires',
    );
  });

  it('names a key holding "/" or "~" as written', () => {
    assert.throws(
      () => parseConfig('webhook:\n  namespaces:\n    a/b~c: {mode: loud}\n', 'c.yaml'),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.split('\n').includes('c.yaml:3:19: webhook.namespaces.a/b~c.mode: must be one of "enforce", "warn", "off"'),
    );
  });

  it('reads a config file, and remembers where it is (exclude patterns are relative to it)', () => {
    const directory = mkdtempSync(join(tmpdir(), 'probe-lint-config-'));
    writeFileSync(join(directory, '.probe-lint.yaml'), 'exclude: [hack/]\nrules:\n  duplicate-key: "off"\n');
    assert.deepEqual(loadConfigFile(join(directory, '.probe-lint.yaml')), {
      exclude: ['hack/'],
      rules: { 'duplicate-key': 'off' },
      file: join(directory, '.probe-lint.yaml'),
    });
  });

  it('says when the file cannot be read', () => {
    assert.throws(
      () => loadConfigFile('/nonexistent/.probe-lint.yaml'),
      (error: unknown) => error instanceof ConfigError && /^\/nonexistent\/\.probe-lint\.yaml: cannot read the config file: ENOENT/.test(error.message),
    );
  });

  for (const [what, text, expected] of bad) {
    it(`rejects ${what} with the file, line and key`, () => {
      assert.throws(
        () => parseConfig(text, 'c.yaml'),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          // One error for the one wrong field: no second line from another branch of the schema.
          assert.equal(error.message.split('\n').length, 1, error.message);
          assert.match(error.message, expected);
          return true;
        },
      );
    });
  }
});

describe('suppression', () => {
  const annotated = (where: 'object' | 'template', value: string, key = 'probe-lint.dev/ignore') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
${where === 'object' ? `  annotations:\n    ${key}: "${value}"\n` : ''}spec:
  template:
    metadata:
      labels: {app: web}
${where === 'template' ? `      annotations:\n        ${key}: "${value}"\n` : ''}    spec:
      containers:
        - name: web
          image: nginx
          livenessProbe:
            httpGet: {port: 80}
          readinessProbe:
            httpGet: {port: 80}
`;

  it('honours the annotation on the object and on the pod template, with a reason', () => {
    for (const where of ['object', 'template'] as const) {
      const { findings, suppressed } = lintText(annotated(where, 'liveness-mirrors-readiness # same endpoint on purpose'));
      assert.deepEqual(findings, []);
      assert.deepEqual(
        suppressed.map((finding) => [finding.rule, finding.suppression]),
        [['liveness-mirrors-readiness', { by: 'annotation', reason: 'probe-lint.dev/ignore: same endpoint on purpose' }]],
      );
    }
  });

  it('honours "*" and per-container annotations, and only for the named container', () => {
    assert.equal(lintText(annotated('object', '*')).findings.length, 0);
    assert.equal(lintText(annotated('template', 'liveness-mirrors-readiness', 'probe-lint.dev/ignore.web')).findings.length, 0);
    assert.equal(lintText(annotated('template', 'liveness-mirrors-readiness', 'probe-lint.dev/ignore.other')).findings.length, 1);
    assert.equal(lintText(annotated('object', 'timeout-not-below-period')).findings.length, 1);
  });

  it('disregards annotations in strict mode', () => {
    assert.equal(lintText(annotated('object', '*'), { strict: true }).findings.length, 1);
  });

  it('applies config ignores by kind, namespace, name and container globs until they expire', () => {
    const config = parseConfig(
      'ignore:\n  - kind: Deploy*\n    namespace: sh?p\n    name: "*"\n    container: web\n    rules: [liveness-mirrors-readiness]\n    reason: LEGACY-42\n    expires: "2027-01-31"\n',
      'c.yaml',
    );
    const text = annotated('object', 'missing-liveness-probe # an annotation about another rule');
    const active = lintText(text, { config, today: '2027-01-31' });
    assert.deepEqual(active.findings, []);
    assert.deepEqual(active.suppressed[0]?.suppression, { by: 'config', reason: 'LEGACY-42' });

    const expired = lintText(text, { config, today: '2027-02-01' });
    assert.equal(expired.findings.length, 1);
    assert.match(expired.findings[0]!.message, /\(the exemption "LEGACY-42" expired on 2027-01-31\)$/);

    const otherNamespace = lintText(text.replace('namespace: shop', 'namespace: prod'), { config, today: '2027-01-01' });
    assert.equal(otherNamespace.findings.length, 1);
  });

  it('expires an exemption on its day in a long-running engine (the webhook), not on the day the engine started', (t) => {
    const config = parseConfig('ignore:\n  - rules: [liveness-mirrors-readiness]\n    reason: LEGACY-42\n    expires: "2027-01-31"\n', 'c.yaml');
    t.mock.timers.enable({ apis: ['Date'], now: Date.parse('2027-01-31T23:00:00Z') });
    const engine = new Engine(RULES, { config, cluster: unknownCluster() });
    const lint = () => engine.lint(lintDocumentsOf(new SourceFile('x.yaml', annotated('object', 'missing-liveness-probe')))).findings.length;
    assert.equal(lint(), 0);
    t.mock.timers.tick(2 * 60 * 60 * 1000);
    assert.equal(lint(), 1);
  });
});

describe('which Services select a pod (run facts)', () => {
  const service = (spec: unknown, metadata: unknown = { name: 'web', namespace: 'shop' }, kind = 'Service', apiVersion = 'v1') =>
    selectingService({ apiVersion, kind, metadata, spec });

  it('reads a v1 Service with a selector of strings, and its target ports: numbers, names, else the port', () => {
    assert.deepEqual(
      service(
        {
          selector: { app: 'web', tier: 'front' },
          ports: [{ port: 80, targetPort: 8080 }, { port: 81, targetPort: 'http' }, { port: 82 }, { port: 83, targetPort: '9090' }, null, { targetPort: '' }],
        },
        undefined,
        'Service',
        'v1',
      ),
      { name: 'web', namespace: 'shop', selector: { app: 'web', tier: 'front' }, targetPorts: [8080, 'http', 82, 9090], metricsOnly: false, scope: '' },
    );
    assert.deepEqual(service({ selector: { app: 'web' } }, {})?.name, '');
    assert.equal(service({ selector: { app: 'web' } }, {})?.namespace, undefined);
    assert.equal(service({ selector: { app: 'web' } }, { name: 7, namespace: 5 })?.namespace, undefined, 'a namespace that is not a string');
    assert.deepEqual(
      service({ selector: { app: 'web' }, ports: [{ targetPort: 'a9090' }, { targetPort: '9090a' }] })?.targetPorts,
      ['a9090', '9090a'],
      'names with digits stay names',
    );
  });

  it('tells a Service of metrics ports alone: each named for metrics, or the one its prometheus.io/port annotation names', () => {
    const metrics = (ports: unknown[], annotations?: Record<string, string>) =>
      service({ selector: { app: 'web' }, ports }, annotations ? { annotations } : {})?.metricsOnly;
    assert.equal(metrics([{ name: 'metrics', port: 9090 }]), true);
    assert.equal(
      metrics([
        { name: 'http-metrics', port: 8080 },
        { name: 'metrics-https', port: 8443 },
        { name: 'prometheus', port: 9090 },
        { name: 'prom', port: 9091 },
      ]),
      true,
    );
    assert.equal(
      metrics([
        { name: 'http', port: 80 },
        { name: 'metrics', port: 9090 },
      ]),
      false,
      'one port for users is enough',
    );
    assert.equal(metrics([{ name: 'promotions', port: 80 }]), false, 'a word that only begins like one');
    assert.equal(metrics([{ port: 9102 }], { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9102' }), true);
    assert.equal(metrics([{ port: 80, targetPort: 9102 }], { 'prometheus.io/port': '9102' }), true, 'the annotation may name the target port');
    assert.equal(metrics([{ port: 80 }], { 'prometheus.io/port': '9102' }), false);
    assert.equal(metrics([]), false, 'a Service without ports says nothing');
  });

  it('reads nothing else as a Service that selects pods', () => {
    for (const [why, spec, kind, apiVersion] of [
      ['no spec', undefined, 'Service', 'v1'],
      ['no selector', { ports: [] }, 'Service', 'v1'],
      ['a null selector', { selector: null }, 'Service', 'v1'],
      ['an empty selector', { selector: {} }, 'Service', 'v1'],
      ['a list as selector', { selector: ['app'] }, 'Service', 'v1'],
      ['a number in the selector', { selector: { app: 'web', replicas: 3 } }, 'Service', 'v1'],
      ['a string as selector', { selector: 'app=web' }, 'Service', 'v1'],
      ['another kind', { selector: { app: 'web' } }, 'Endpoints', 'v1'],
      ['another group', { selector: { app: 'web' } }, 'Service', 'serving.knative.dev/v1'],
    ] as const) {
      assert.equal(service(spec, undefined, kind, apiVersion), undefined, why);
    }
  });

  it('matches every selector pair against the labels, in the same namespace ("default" when unset) and the same deployment scope', () => {
    const web = { name: 'web', namespace: 'shop', selector: { app: 'web', tier: 'front' }, targetPorts: [80], metricsOnly: false, scope: 'manifests' };
    const other = { name: 'other', namespace: undefined, selector: { app: 'web' }, targetPorts: [80], metricsOnly: false, scope: 'elsewhere' };
    const twin = { ...web, name: 'web-metrics', targetPorts: [9090] };
    assert.deepEqual(new RunFacts([web, twin]).servicesSelecting('shop', { app: 'web', tier: 'front' }), [web, twin], 'two Services with the same first pair');
    const facts = new RunFacts([web, other]);
    assert.deepEqual(facts.servicesSelecting('shop', { app: 'web', tier: 'front', version: '2' }), [web]);
    assert.deepEqual(facts.servicesSelecting('shop', { app: 'web' }), [], 'a missing selector pair');
    assert.deepEqual(facts.servicesSelecting('shop', { app: 'web', tier: 'back' }), [], 'a different value');
    assert.deepEqual(facts.servicesSelecting(undefined, { app: 'web' }), [other], 'an unset namespace is "default", for pods and Services alike');
    assert.deepEqual(facts.servicesSelecting('default', { app: 'web' }), [other]);
    assert.deepEqual(facts.servicesSelecting('shop', undefined), []);
    assert.deepEqual(new RunFacts().servicesSelecting('shop', { app: 'web' }), []);
    // Deployed together: a plain manifest's directory, a rendering, or the cluster (no file).
    assert.deepEqual(facts.servicesSelecting('shop', { app: 'web', tier: 'front' }, { file: 'manifests/web.yaml' }), [web]);
    assert.deepEqual(facts.servicesSelecting('shop', { app: 'web', tier: 'front' }, { file: 'other/web.yaml' }), []);
    assert.equal(deploymentScope({}), '');
    assert.equal(deploymentScope({ file: '-' }), '-');
    assert.equal(deploymentScope({ file: 'a/b/c.yaml' }), 'a/b');
    const rendered = (values: string | undefined, root: string | undefined) =>
      deploymentScope({ file: 'charts/app/templates/x.yaml', rendered: { from: 'helm', root, values, locateRendered: () => ({ line: 1, column: 1 }) } });
    assert.equal(rendered('ci/a-values.yaml', 'charts/app'), 'helm\u0000charts/app\u0000ci/a-values.yaml');
    assert.equal(rendered(undefined, undefined), 'helm\u0000-\u0000');
    assert.notEqual(rendered('ci/a-values.yaml', 'charts/app'), rendered('ci/b-values.yaml', 'charts/app'), 'each values file is its own rendering');
  });
});

describe('the engine, with rules of its own', () => {
  const pods = (text: string) => lintDocumentsOf(new SourceFile('t.yaml', text));
  const POD = `apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations: {probe-lint.dev/ignore: "probe-everything # test"}
spec:
  initContainers:
    - {name: init, image: x}
  containers:
    - {name: a, image: x}
    - {name: b, image: x, livenessProbe: {periodSeconds: ten}}
`;
  const probeEverything = defineRule({
    meta: {
      id: 'probe-everything',
      severity: 'info',
      summary: 'test',
      remediation: 'test',
      scope: { roles: ['container'], longRunningOnly: true },
      policy: { notExpressible: 'test' },
      messages: { seen: { short: 'saw {name}', long: 'saw container {name}' } },
    },
    checkContainer({ container, report }) {
      report({
        messageId: 'seen',
        data: { name: container.name },
        pointer: container.pointer,
        fix: [{ op: 'remove', path: '/x' }],
        position: { line: 9, column: 9 },
      });
    },
  });
  const throwing = throwingRule(['init']);
  const unknownMessage = defineRule({
    meta: {
      id: 'bad-message',
      severity: 'warning',
      summary: 't',
      remediation: 't',
      policy: { notExpressible: 't' },
      messages: { m: { short: 'm', long: 'm' } },
    },
    checkPodSite({ report }) {
      report({ messageId: 'nope' as 'm', pointer: '' });
    },
  });
  const engine = (config = {}, strict = false) => new Engine([probeEverything, throwing, unknownMessage], { config, cluster: unknownCluster(), strict });

  it('runs a container rule on the roles in its scope, only on decodable containers, and counts objects and containers', () => {
    const result = engine({}).asStrict().lint(pods(POD));
    assert.deepEqual(
      result.findings.map((finding) => `${finding.rule} ${finding.container} ${finding.message}`),
      ['probe-everything a saw container a'],
    );
    assert.equal(result.resources, 1);
    assert.equal(result.containers, 3);
  });

  it('drops a fix the rule does not declare, keeps its position, and leaves container out where there is none', () => {
    const [finding] = engine({}).asStrict().lint(pods(POD)).findings;
    assert.equal(finding!.fix, undefined);
    assert.equal(finding!.fixKind, undefined);
    assert.deepEqual(finding!.position, { line: 9, column: 9 });
    assert.equal(finding!.evidence, undefined);
  });

  it('a rule that throws, or reports an unknown message id, is a failure for that object; the others still run', () => {
    const result = engine({}).asStrict().lint(pods(POD));
    assert.deepEqual(
      result.failures.map((failure) => ruleFailureMessage(failure)),
      [
        'rule bad-message failed on this object (please report it): bad-message reported an unknown message id "nope"',
        'rule throws failed on this object (please report it): boom',
      ],
    );
    assert.equal(
      ruleFailureMessage({ rule: 'x', resource: result.failures[0]!.resource, error: 'plain' }),
      'rule x failed on this object (please report it): plain',
    );
  });

  it('annotations suppress unless the engine or the call is strict; the call decides for itself', () => {
    const lenient = engine({});
    assert.deepEqual([lenient.lint(pods(POD)).findings.length, lenient.lint(pods(POD)).suppressed.length], [0, 1]);
    assert.equal(lenient.asStrict().lint(pods(POD)).findings.length, 1);
    assert.equal(lenient.lint(pods(POD)).findings.length, 0, 'its strict variant leaves the engine as it was');
    assert.equal(engine({}, true).lint(pods(POD)).findings.length, 1);
  });

  it('honours annotations when neither the engine nor the call asks for strictness', () => {
    const result = new Engine([probeEverything], { config: {}, cluster: unknownCluster() }).lint(pods(POD));
    assert.deepEqual([result.findings.length, result.suppressed.length], [0, 1]);
  });

  const clusterReader = defineRule({
    meta: {
      id: 'reads-cluster',
      severity: 'info',
      summary: 'test',
      remediation: 'test',
      scope: { roles: ['container'] },
      policy: { notExpressible: 't' },
      messages: { m: { short: '{pods}', long: '{pods}' } },
    },
    checkContainer({ container, cluster, report }) {
      if (container.name === 'a') report({ messageId: 'm', data: { pods: String(cluster.podsPerNode) }, pointer: container.pointer });
    },
  });

  it('reads the cluster facts of the moment from a source that refreshes them, and fixed facts as given', () => {
    let podsPerNode = 30;
    const refreshing = new Engine([clusterReader], { config: {}, cluster: { current: () => ({ ...unknownCluster(), podsPerNode }) } });
    assert.equal(refreshing.asStrict().lint(pods(POD)).findings[0]!.message, '30');
    podsPerNode = 110;
    assert.equal(refreshing.asStrict().lint(pods(POD)).findings[0]!.message, '110');
    const fixed = new Engine([clusterReader], { config: {}, cluster: { ...unknownCluster(), podsPerNode: 5 } });
    assert.equal(fixed.asStrict().lint(pods(POD)).findings[0]!.message, '5');
  });

  const documentRule = defineRule({
    meta: {
      id: 'source-issues',
      severity: 'warning',
      summary: 'test',
      remediation: 'test',
      fix: 'fix',
      policy: { notExpressible: 't' },
      messages: { m: { short: '{kind}', long: '{kind}' } },
    },
    checkDocument({ sourceIssues, report }) {
      for (const issue of sourceIssues) report({ messageId: 'm', data: { kind: issue.kind }, pointer: '' });
    },
  });
  const siteRule = defineRule({
    meta: {
      id: 'site-seen',
      severity: 'info',
      summary: 'test',
      remediation: 'test',
      // A scope without checkContainer: the rule is still one of pod sites only.
      scope: { roles: ['container'] },
      policy: { notExpressible: 't' },
      messages: { m: { short: 'site', long: 'site' } },
    },
    checkPodSite({ site, report }) {
      report({ messageId: 'm', pointer: site.pointer });
    },
  });
  const documentEngine = () => new Engine([documentRule, siteRule], { config: {}, cluster: unknownCluster() });

  it('runs document rules once per document that has source issues, and pod-site rules once per decodable site', () => {
    const duplicated = `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers: [{name: a, image: x}]
  containers: [{name: a, image: x}]
`;
    const result = documentEngine().asStrict().lint(pods(duplicated));
    assert.deepEqual(
      result.findings.map((finding) => `${finding.rule} ${finding.message}`),
      ['source-issues duplicate-key', 'site-seen site'],
    );
    assert.deepEqual(result.failures, []);
    for (const finding of result.findings)
      assert.deepEqual(
        ['container', 'fix', 'fixKind', 'position', 'evidence'].filter((key) => key in finding),
        [],
        `${finding.rule}: only what the report gave`,
      );
    const orphan = { resources: [], sourceIssues: [{ kind: 'duplicate-key', position: { line: 2, column: 1 }, detail: { key: 'a' } }] };
    assert.deepEqual(documentEngine().lint([orphan]).findings, [], 'no object to tie an issue of a document to');
    const undecodable = documentEngine().lint(pods(podYaml('livenessProbe: {tcpSocket: {port: 80, host: 127.0.0.1}}', 'hostNetwork: maybe')));
    assert.deepEqual(undecodable.findings, [], 'a site the API server cannot decode');
  });

  it("suppresses document and pod-site findings by the object's annotations", () => {
    const annotated = `apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations: {probe-lint.dev/ignore: "source-issues,site-seen # test"}
spec:
  containers: [{name: a, image: x}]
  containers: [{name: a, image: x}]
`;
    const result = documentEngine().lint(pods(annotated));
    assert.deepEqual([result.findings.length, result.suppressed.map((finding) => finding.rule)], [0, ['source-issues', 'site-seen']]);
  });

  it('rules turned off neither run nor count as enabled; a severity from the config wins', () => {
    const configured = engine({ rules: { throws: 'off', 'probe-everything': 'error' } });
    assert.deepEqual(configured.enabledRuleIds, ['probe-everything', 'bad-message']);
    const result = configured.asStrict().lint(pods(POD));
    assert.deepEqual(
      result.failures.map((failure) => failure.rule),
      ['bad-message'],
    );
    assert.equal(result.findings[0]!.severity, 'error');
    assert.deepEqual(engine({ rules: { 'probe-everything': { enabled: false } } }).enabledRuleIds, ['throws', 'bad-message']);
  });
});
