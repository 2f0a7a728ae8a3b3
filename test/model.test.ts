// Effective values, pod-site discovery and input forms: what every rule stands on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { effectiveProbe, resolvePort } from '../src/model/effective-probe.js';
import { checkIdentity, requestPath } from '../src/model/probe-check.js';
import { expandVariables } from '../src/model/exec-command.js';
import { findPodSites } from '../src/model/pod-site.js';
import { describeResource, identityOf, isKubeObject, resourcesOfDocument, standaloneResource } from '../src/model/resource.js';
import { SourceFile } from '../src/source/parse/source-file.js';
import { lintText, podYaml } from './helpers.js';

function sitesOf(text: string) {
  const source = new SourceFile('t.yaml', text);
  return source.documents.flatMap((document) => resourcesOfDocument(document.value, {}).flatMap(findPodSites));
}

describe('effective probe values', () => {
  it('has no probe for a probe field that is null, a list or a scalar, and no handler for one written null', () => {
    for (const written of ['null', '[]', '5']) {
      const [site] = sitesOf(podYaml(`livenessProbe: ${written}`));
      assert.equal(effectiveProbe(site!.containers[0]!, 'liveness'), undefined, written);
    }
    const [site] = sitesOf(podYaml('livenessProbe: {exec: null, httpGet: {port: 80}}'));
    assert.deepEqual(effectiveProbe(site!.containers[0]!, 'liveness')!.handlerKinds, ['httpGet']);
  });

  it('resolves a named port to the number declared with that name, past entries that are not ports', () => {
    const container = { name: 'c', ports: [null, { name: 'admin', containerPort: 9090 }, { name: 'web', containerPort: 8080 }] } as never;
    assert.deepEqual(
      [resolvePort(container, 'web'), resolvePort(container, 'other'), resolvePort(container, 80), resolvePort(container, undefined)],
      [8080, 'other', 80, undefined],
    );
  });

  it('applies the API defaults when no field is set', () => {
    const [site] = sitesOf(podYaml('livenessProbe:\n  tcpSocket:\n    port: 80'));
    const probe = effectiveProbe(site!.containers[0]!, 'liveness')!;
    assert.deepEqual([probe.timeoutSeconds, probe.periodSeconds, probe.successThreshold, probe.failureThreshold, probe.initialDelaySeconds], [1, 10, 1, 3, 0]);
    assert.equal(probe.pointer, '/spec/containers/0/livenessProbe');
  });

  it('treats 0 as the default and keeps negative values for validation', () => {
    const [site] = sitesOf(podYaml('readinessProbe:\n  exec:\n    command: [x]\n  periodSeconds: 0\n  timeoutSeconds: -2'));
    const probe = effectiveProbe(site!.containers[0]!, 'readiness')!;
    assert.equal(probe.periodSeconds, 10);
    assert.equal(probe.timeoutSeconds, -2);
    // Any one negative number makes the probe's numbers invalid; none does not.
    const fields = ['timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold', 'initialDelaySeconds'];
    for (const field of fields) {
      const [negative] = sitesOf(podYaml(`readinessProbe:\n  tcpSocket: {port: 80}\n  ${field}: -1`));
      assert.equal(effectiveProbe(negative!.containers[0]!, 'readiness')!.numbersValid, false, field);
    }
    const [valid] = sitesOf(podYaml(`readinessProbe:\n  tcpSocket: {port: 80}\n${fields.map((field) => `  ${field}: 1`).join('\n')}`));
    assert.equal(effectiveProbe(valid!.containers[0]!, 'readiness')!.numbersValid, true);
  });

  it('reports nothing about timing for a probe with only a handler', () => {
    const { findings } = lintText(
      podYaml('livenessProbe:\n  httpGet:\n    path: /livez\n    port: 80\nreadinessProbe:\n  httpGet:\n    path: /readyz\n    port: 80'),
    );
    assert.deepEqual(
      findings.map((finding) => finding.rule),
      [],
    );
  });

  it('sees a named port and the number it resolves to as the same check', () => {
    const [site] = sitesOf(
      podYaml(
        'ports:\n  - name: web\n    containerPort: 8080\nlivenessProbe:\n  httpGet:\n    port: web\nreadinessProbe:\n  httpGet:\n    port: 8080\n    path: /',
      ),
    );
    const container = site!.containers[0]!;
    const liveness = effectiveProbe(container, 'liveness')!;
    const readiness = effectiveProbe(container, 'readiness')!;
    assert.equal(checkIdentity(liveness, container.container), checkIdentity(readiness, container.container));
  });
});

describe('pod sites', () => {
  const template = `template:
    metadata:
      labels: {app: x}
    spec:
      containers:
        - name: app
          image: example/app:1`;
  const cases: [string, string, string][] = [
    ['Pod', 'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n    - name: app\n      image: example/app:1', '/spec'],
    ['PodTemplate', `apiVersion: v1\nkind: PodTemplate\nmetadata: {name: x}\n${template.replace(/^ {2}/gm, '')}`, '/template/spec'],
    ['ReplicationController', `apiVersion: v1\nkind: ReplicationController\nmetadata: {name: x}\nspec:\n  ${template}`, '/spec/template/spec'],
    ['Deployment', `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  ${template}`, '/spec/template/spec'],
    ['ReplicaSet', `apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: x}\nspec:\n  ${template}`, '/spec/template/spec'],
    ['StatefulSet', `apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: x}\nspec:\n  ${template}`, '/spec/template/spec'],
    ['DaemonSet', `apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: x}\nspec:\n  ${template}`, '/spec/template/spec'],
    ['Job', `apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec:\n  ${template}`, '/spec/template/spec'],
    [
      'CronJob',
      `apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: x}\nspec:\n  schedule: "* * * * *"\n  jobTemplate:\n    spec:\n${template.replace(/^/gm, '      ')}`,
      '/spec/jobTemplate/spec/template/spec',
    ],
    ['Rollout (custom resource)', `apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {name: x}\nspec:\n  ${template}`, '/spec/template/spec'],
  ];
  for (const [kind, text, pointer] of cases) {
    it(`finds the pod spec of a ${kind} at ${pointer}`, () => {
      const sites = sitesOf(text);
      assert.deepEqual(
        sites.map((site) => site.pointer),
        [pointer],
      );
      assert.deepEqual(
        sites[0]!.containers.map((container) => [container.name, container.role, container.pointer]),
        [['app', 'container', `${pointer}/containers/0`]],
      );
    });
  }

  it('finds items of a List and of a typed *List, with pointers into the document', () => {
    const list = `apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: c}
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: d}
    spec:
      template:
        spec:
          containers:
            - name: app
              image: example/app:1
`;
    assert.deepEqual(
      sitesOf(list).map((site) => site.pointer),
      ['/items/1/spec/template/spec'],
    );
    assert.deepEqual(
      sitesOf(list.replace('kind: List', 'kind: DeploymentList')).map((site) => site.pointer),
      ['/items/1/spec/template/spec'],
    );
  });

  it('gives each container its role: container, sidecar, init, ephemeral', () => {
    const [site] = sitesOf(`apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers:
    - {name: setup, image: a}
    - {name: proxy, image: b, restartPolicy: Always}
  containers:
    - {name: app, image: c}
  ephemeralContainers:
    - {name: debug, image: d}
`);
    assert.deepEqual(
      site!.containers.map((container) => `${container.name}:${container.role}`),
      ['app:container', 'setup:init', 'proxy:sidecar', 'debug:ephemeral'],
    );
  });

  it('ignores custom resources whose "containers" are partial overrides without images', () => {
    assert.deepEqual(
      sitesOf('apiVersion: monitoring.coreos.com/v1\nkind: Prometheus\nmetadata: {name: k8s}\nspec:\n  containers:\n    - name: prometheus\n      env: []'),
      [],
    );
  });

  it("finds an OpenShift DeploymentConfig's pod template even when its containers name no image (an image-change trigger fills it)", () => {
    const deploymentConfig = `apiVersion: apps.openshift.io/v1
kind: DeploymentConfig
metadata: {name: web}
spec:
  triggers: [{type: ImageChange, imageChangeParams: {containerNames: [web], from: {kind: ImageStreamTag, name: 'web:latest'}}}]
  template:
    spec:
      containers:
        - name: web
          livenessProbe: {httpGet: {path: /, port: 8080}, timeoutSeconds: 10}
`;
    const { located } = lintText(deploymentConfig);
    assert.deepEqual(located.map((finding) => `${finding.line}:${finding.column} ${finding.rule}`).sort(), [
      '10:59 timeout-not-below-period',
      '9:11 missing-readiness-probe',
    ]);
  });

  it('skips documents that are not Kubernetes objects', () => {
    const workflow = 'name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm test\n';
    const values = 'replicaCount: 2\nimage:\n  repository: nginx\nlivenessProbe:\n  httpGet: {port: 99999}\n';
    const { findings, resources } = lintText(`${workflow}---\n${values}---\n`);
    assert.equal(resources, 0);
    assert.deepEqual(findings, []);
  });
});

describe('source positions', () => {
  it('reads a stream of JSON objects as kubectl does, each in turn, with positions in each', () => {
    const pod = (name: string, probe: string) =>
      `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"${name}"},"spec":{"containers":[{"name":"c","image":"x",${probe}}]}}`;
    const stream = `${pod('a', '"readinessProbe":{"tcpSocket":{"port":80},"terminationGracePeriodSeconds":5}')}\n  ${pod('b', '"livenessProbe":{"exec":{"command":["true"]},"timeoutSeconds":10}')}\n`;
    const { located, resources } = lintText(stream, { file: 'stream.json' });
    assert.equal(resources, 2);
    assert.deepEqual(
      located.filter((finding) => finding.severity !== 'info').map((finding) => `${finding.line}:${finding.column} ${finding.rule} ${finding.identity.name}`),
      ['1:145 readiness-termination-grace-period a', '2:150 timeout-not-below-period b'],
    );
  });

  it('locates findings in JSON input', () => {
    const json = JSON.stringify(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: { containers: [{ name: 'c', image: 'i', readinessProbe: { tcpSocket: { port: 80 }, terminationGracePeriodSeconds: 5 } }] },
      },
      null,
      2,
    );
    const { located } = lintText(json, { file: 'pod.json' });
    const finding = located.find((candidate) => candidate.rule === 'readiness-termination-grace-period')!;
    const line = json.split('\n').findIndex((text) => text.includes('"terminationGracePeriodSeconds"')) + 1;
    assert.equal(finding.line, line);
    assert.equal(finding.column, json.split('\n')[line - 1]!.indexOf('"terminationGracePeriodSeconds"') + 1);
  });

  it('locates findings in the right document of a stream and inside List items', () => {
    const text = `apiVersion: v1
kind: ConfigMap
metadata: {name: a}
---
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Pod
    metadata: {name: p}
    spec:
      containers:
        - name: c
          image: i
          livenessProbe:
            grpc:
              port: health
`;
    const { located } = lintText(text);
    const finding = located.find((candidate) => candidate.rule === 'grpc-named-port')!;
    assert.equal(finding.pointer, '/items/0/spec/containers/0/livenessProbe/grpc/port');
    assert.deepEqual([finding.line, finding.column], [17, 15]);
    assert.deepEqual(finding.identity, { apiVersion: 'v1', kind: 'Pod', name: 'p' });
  });

  it('locates findings in a document that another follows', () => {
    const { located } = lintText(`${podYaml('livenessProbe:\n  grpc:\n    port: health')}---\n${podYaml('')}`);
    const finding = located.find((candidate) => candidate.rule === 'grpc-named-port')!;
    assert.deepEqual([finding.line, finding.column], [12, 11]);
  });

  it('reports a duplicate key and lints the document with the last value', () => {
    const text = podYaml('livenessProbe:\n  httpGet:\n    path: /a\n    port: 80\n  timeoutSeconds: 1\n  timeoutSeconds: 20');
    const { located } = lintText(text);
    const rules = located.map((finding) => `${finding.rule}@${finding.line}`).sort();
    assert.deepEqual(rules, ['duplicate-key@15', 'missing-readiness-probe@8', 'timeout-not-below-period@15']);
  });

  it('keeps the documents before a YAML syntax error and reports where it is', () => {
    const source = new SourceFile('broken.yaml', `${podYaml('')}---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: [unclosed\n`);
    assert.equal(source.documents.length, 1);
    assert.deepEqual({ line: source.error?.line, file: source.error?.file }, { line: 16, file: 'broken.yaml' });
    assert.ok(source.error!.reason.length > 0);
  });
});

describe('reading like kubectl', () => {
  it('resolves plain scalars as go-yaml v2 does, and leaves quoted ones strings', () => {
    const read = (value: string) => (new SourceFile('t.yaml', `v: ${value}\n`).documents[0]!.value as { v: unknown }).v;
    const cases: [string, unknown][] = [
      ['yes', true],
      ['Yes', true],
      ['YES', true],
      ['y', true],
      ['on', true],
      ['ON', true],
      ['true', true],
      ['no', false],
      ['N', false],
      ['off', false],
      ['Off', false],
      ['false', false],
      ['yEs', 'yEs'],
      ['"yes"', 'yes'],
      ["'on'", 'on'],
      ['~', null],
      ['Null', null],
      ['', null],
      ['0755', 493],
      ['0x1F', 31],
      ['0o17', 15],
      ['0b101', 5],
      ['-0b11', -3],
      ['+12', 12],
      ['1_000', 1000],
      ['08', 8],
      ['1.5', 1.5],
      ['.5', 0.5],
      ['1e3', 1000],
      ['6.0', 6],
      ['2024-1-2', '2024-01-02T00:00:00Z'],
      ['2024-01-02 03:04:05', '2024-01-02T03:04:05Z'],
      ['2024-01-02T03:04:05.500+02:00', '2024-01-02T03:04:05.5+02:00'],
      ['2024-13-40', '2024-13-40'],
      ['12:30', '12:30'],
      ['1.2.3', '1.2.3'],
    ];
    for (const [text, expected] of cases) assert.deepEqual(read(text), expected, text);
    assert.equal(read('.inf'), Infinity);
    assert.ok(Number.isNaN(read('.NaN')));
  });

  it('reads mapping keys as sigs.k8s.io/yaml does: `on` is the key "true"', () => {
    const value = new SourceFile('t.yaml', 'on: 1\n0x10: 2\n').documents[0]!.value;
    assert.deepEqual(value, { true: 1, 16: 2 });
  });

  it('applies merge keys, and points at what the merge brought in', () => {
    const text =
      'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n      image: i\n      startupProbe: &p\n        httpGet: {port: 80}\n      livenessProbe:\n        <<: *p\n        successThreshold: 2\n';
    const { findings, located } = lintText(text);
    assert.deepEqual(findings.map((finding) => finding.rule).sort(), ['missing-readiness-probe', 'success-threshold-not-one']);
    assert.equal(located.find((finding) => finding.rule === 'success-threshold-not-one')!.line, 12);
  });

  it('flattens Lists inside Lists, as kubectl does, with pointers into the document', () => {
    const document = {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'PodList', items: [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' } }] },
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'b' } },
      ],
    };
    assert.deepEqual(
      resourcesOfDocument(document, {}).map((resource) => [resource.object.metadata?.name, resource.pointer]),
      [
        ['a', '/items/0/items/0'],
        ['b', '/items/1'],
      ],
    );
  });

  it('expands the objects of well-known wrappers: OpenShift Template, ManifestWork, Crossplane Object, a captured AdmissionReview', () => {
    const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name } });
    const wrappers: [unknown, string[]][] = [
      [{ apiVersion: 'template.openshift.io/v1', kind: 'Template', objects: [pod('t')] }, ['/objects/0']],
      [
        { apiVersion: 'work.open-cluster-management.io/v1', kind: 'ManifestWork', spec: { workload: { manifests: [pod('m1'), pod('m2')] } } },
        ['/spec/workload/manifests/0', '/spec/workload/manifests/1'],
      ],
      [{ apiVersion: 'kubernetes.crossplane.io/v1alpha2', kind: 'Object', spec: { forProvider: { manifest: pod('x') } } }, ['/spec/forProvider/manifest']],
      [{ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u', object: pod('r') } }, ['/request/object']],
    ];
    for (const [document, pointers] of wrappers) {
      const resources = resourcesOfDocument(document, {});
      assert.deepEqual(
        resources.map((resource) => resource.pointer),
        pointers,
      );
      assert.ok(resources.every((resource) => resource.object.kind === 'Pod'));
    }
    assert.equal(resourcesOfDocument({ apiVersion: 'template.openshift.io/v1', kind: 'Template', objects: [pod('t')] }, {})[0]!.parameterized, true);
  });
});

describe('what of a pod spec the API server could not decode, and what counts', () => {
  const issues = (text: string) =>
    sitesOf(text).map((site) => [
      site.decodeIssues.map((issue) => issue.pointer),
      site.containers.map((container) => container.decodeIssues.map((issue) => issue.pointer)),
    ]);

  it("a container's probes always; its ports only when a probe names a port; its env only when an exec probe expands $(VAR); nothing else", () => {
    assert.deepEqual(issues(podYaml('livenessProbe: {periodSeconds: ten, tcpSocket: {port: 80}}')), [
      [[], [['/spec/containers/0/livenessProbe/periodSeconds']]],
    ]);
    assert.deepEqual(issues(podYaml('ports: oops\nlivenessProbe: {tcpSocket: {port: web}}')), [[[], [['/spec/containers/0/ports']]]]);
    assert.deepEqual(issues(podYaml('ports: oops\nreadinessProbe: {httpGet: {port: web}}')), [[[], [['/spec/containers/0/ports']]]]);
    assert.deepEqual(issues(podYaml('ports: oops\nlivenessProbe: {tcpSocket: {port: 80}}')), [[[], [[]]]], 'a numbered port needs no ports');
    assert.deepEqual(issues(podYaml('env: oops\nlivenessProbe: {exec: {command: [check, "$(PORT)"]}}')), [[[], [['/spec/containers/0/env']]]]);
    assert.deepEqual(issues(podYaml('env: oops\nlivenessProbe: {exec: {command: [check, "$PORT"]}}')), [[[], [[]]]], '$VAR is not expanded');
    assert.deepEqual(issues(podYaml('env: oops\nports: oops\nresources: oops\nlivenessProbe: {grpc: {port: 9000}}')), [[[], [[]]]]);
  });

  it('hostNetwork only when a probe names a host (the host defaults to the pod IP, which hostNetwork changes)', () => {
    assert.deepEqual(issues(podYaml('livenessProbe: {httpGet: {port: 80, host: 127.0.0.1}}', 'hostNetwork: maybe')), [[['/spec/hostNetwork'], [[]]]]);
    assert.deepEqual(issues(podYaml('livenessProbe: {tcpSocket: {port: 80, host: 127.0.0.1}}', 'hostNetwork: maybe')), [[['/spec/hostNetwork'], [[]]]]);
    assert.deepEqual(issues(podYaml('livenessProbe: {tcpSocket: {port: 80}}', 'hostNetwork: maybe')), [[[], [[]]]]);
  });

  it('in an OpenShift Template, a ${PARAM} value is filled in later: not judged; elsewhere it is', () => {
    const deployment = (kind: string) => `apiVersion: apps/v1
kind: ${kind}
metadata: {name: web}
spec:
  template:
    spec:
      containers:
        - name: web
          image: example/web:1
          livenessProbe: {periodSeconds: "\${PERIOD}", tcpSocket: {port: 80}}`;
    const template = `apiVersion: template.openshift.io/v1\nkind: Template\nobjects:\n${deployment('Deployment').replace(/^/gm, '  ').replace(/^ {2}/, '- ')}`;
    assert.deepEqual(issues(template), [[[], [[]]]]);
    assert.deepEqual(issues(deployment('Deployment')), [[[], [['/spec/template/spec/containers/0/livenessProbe/periodSeconds']]]]);
  });

  it('who a container is: its role, what happens after a kill, and the pod metadata that labels it', () => {
    const [pod] = sitesOf(
      podYaml(
        'restartPolicy: Never',
        'restartPolicy: OnFailure\ninitContainers:\n  - {name: setup, image: x}\n  - {name: proxy, image: x, restartPolicy: Always}',
      ),
    );
    assert.deepEqual(
      pod!.containers.map((site) => `${site.name} ${site.role} ${site.restartPolicy}`),
      ['c container Never', 'setup init OnFailure', 'proxy sidecar Always'],
    );
    assert.equal(pod!.longRunning, false);
    assert.deepEqual(pod!.podMetadata, { name: 'p' }, "a Pod's metadata is the object's");
    const [job] = sitesOf(
      'apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers: [{name: c, image: x}]\n',
    );
    assert.deepEqual([job!.longRunning, job!.containers[0]!.restartPolicy, job!.podMetadata], [false, 'OnFailure', { labels: { a: 'b' } }]);
    const [deployment] = sitesOf(
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: x}]\n',
    );
    assert.deepEqual([deployment!.longRunning, deployment!.podMetadata], [true, undefined]);
  });

  it('the pod-level values: the container lists always, hostNetwork when any container names a host', () => {
    assert.deepEqual(issues(podYaml('livenessProbe: {tcpSocket: {port: 80}}', 'initContainers: oops')), [[['/spec/initContainers'], [[]]]]);
    const two = podYaml('livenessProbe: {tcpSocket: {port: 80}}', 'hostNetwork: maybe').replace(
      '  containers:\n',
      '  containers:\n    - {name: other, image: x, readinessProbe: {httpGet: {port: 80, host: 10.0.0.1}}}\n',
    );
    assert.deepEqual(issues(two)[0]![0], ['/spec/hostNetwork'], 'one container naming a host is enough');
  });

  it('what one probe needs counts even when another probe of the container needs nothing', () => {
    const named = 'ports: oops\nlivenessProbe: {tcpSocket: {port: 80}}\nreadinessProbe: {httpGet: {port: web}}';
    assert.deepEqual(issues(podYaml(named)), [[[], [['/spec/containers/0/ports']]]]);
    const expanded = 'env: oops\nresources: oops\nimage: 5\nlivenessProbe: {tcpSocket: {port: 80}}\nreadinessProbe: {exec: {command: ["$(CHECK)"]}}';
    assert.deepEqual(issues(podYaml(expanded)), [[[], [['/spec/containers/0/env']]]], 'env, and not resources or image');
  });

  it('in an OpenShift Template, a value that is no ${PARAM} is still judged', () => {
    const template = `apiVersion: template.openshift.io/v1
kind: Template
objects:
  - apiVersion: v1
    kind: Pod
    metadata: {name: web}
    spec:
      containers:
        - name: web
          image: example/web:1
          livenessProbe: {periodSeconds: ten, timeoutSeconds: "\${TIMEOUT}", tcpSocket: {port: 80}}`;
    assert.deepEqual(issues(template), [[[], [['/objects/0/spec/containers/0/livenessProbe/periodSeconds']]]]);
  });
});

describe('objects and their names', () => {
  const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name } });
  const names = (document: unknown) =>
    resourcesOfDocument(document, {}).map(
      (resource) => `${resource.object.metadata?.name}${resource.parameterized ? ' (parameterized)' : ''} at ${resource.pointer || '/'}`,
    );

  it('is a Kubernetes object only with a string apiVersion and a kind that is not empty', () => {
    for (const value of [
      null,
      'Pod',
      [pod('a')],
      {},
      { kind: 'Pod' },
      { apiVersion: 'v1' },
      { apiVersion: 'v1', kind: '' },
      { apiVersion: 1, kind: 'Pod' },
      { apiVersion: 'v1', kind: 7 },
    ])
      assert.equal(isKubeObject(value), false, JSON.stringify(value));
    assert.equal(isKubeObject({ apiVersion: 'v1', kind: 'Pod' }), true);
    assert.deepEqual(names([pod('a')]), [], 'a YAML list of objects is no object');
  });

  it("an OpenShift Template's objects, from either API group, are parameterized, and so is what they wrap; other wrappers' contents are not", () => {
    assert.deepEqual(names({ apiVersion: 'v1', kind: 'Template', objects: [pod('a'), { apiVersion: 'v1', kind: 'List', items: [pod('b')] }] }), [
      'a (parameterized) at /objects/0',
      'b (parameterized) at /objects/1/items/0',
    ]);
    assert.deepEqual(
      names({ apiVersion: 'apps.example.com/v1', kind: 'Template', objects: [pod('a')] }),
      ['undefined at /'],
      'a Template of another group is an object of its own',
    );
    assert.deepEqual(names({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { object: pod('r') } }), ['r at /request/object']);
    assert.deepEqual(
      names({ apiVersion: 'kubernetes.crossplane.io/v1alpha2', kind: 'Object', spec: { forProvider: { manifest: [pod('x')] } } }),
      [],
      'one manifest, not a list',
    );
    assert.deepEqual(
      names({ apiVersion: 'work.open-cluster-management.io/v1', kind: 'ManifestWork', spec: { workload: { manifests: pod('m') } } }),
      [],
      'a list, not one manifest',
    );
    assert.deepEqual(names({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: null }), []);
    assert.deepEqual(names({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: 'x' }), []);
  });

  it('follows lists and wrappers eight deep; deeper, the object is taken as it is', () => {
    let document: unknown = pod('deep');
    for (let depth = 0; depth < 8; depth++) document = { apiVersion: 'v1', kind: 'List', items: [document] };
    assert.deepEqual(names(document), [`deep at ${'/items/0'.repeat(8)}`]);
    const deeper = { apiVersion: 'v1', kind: 'List', items: [document] };
    assert.deepEqual(names(deeper), [`undefined at ${'/items/0'.repeat(8)}`], 'the ninth level is a List object itself');
  });

  it('counts wrappers toward the same depth, whether they hold one object or many', () => {
    const wrapped = (levels: number, wrap: (inner: unknown) => unknown) => {
      let document: unknown = pod('deep');
      for (let depth = 0; depth < levels; depth++) document = wrap(document);
      return names(document).length === 1 && names(document)[0]!.startsWith('deep at');
    };
    const review = (inner: unknown) => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { object: inner } });
    const work = (inner: unknown) => ({ apiVersion: 'work.open-cluster-management.io/v1', kind: 'ManifestWork', spec: { workload: { manifests: [inner] } } });
    assert.deepEqual([wrapped(8, review), wrapped(9, review), wrapped(8, work), wrapped(9, work)], [true, false, true, false]);
    assert.deepEqual(names({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: null }), [], 'a review without a request holds nothing');
  });

  it('names an object by name, else generateName; kind, namespace and name in messages', () => {
    assert.deepEqual(identityOf({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', generateName: 'g-', namespace: 'ns' } }), {
      apiVersion: 'v1',
      kind: 'Pod',
      name: 'a',
      namespace: 'ns',
    });
    assert.deepEqual(identityOf({ apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'g-' } }), { apiVersion: 'v1', kind: 'Pod', name: 'g-' });
    assert.deepEqual(identityOf({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 7, namespace: 8 } } as never), { apiVersion: 'v1', kind: 'Pod' });
    assert.deepEqual(identityOf({ apiVersion: 'v1', kind: 'Pod', metadata: null } as never), { apiVersion: 'v1', kind: 'Pod' });
    assert.equal(describeResource({ apiVersion: 'v1', kind: 'Pod', name: 'a', namespace: 'ns' }), 'Pod/ns/a');
    assert.equal(describeResource({ apiVersion: 'v1', kind: 'Pod', name: 'a' }), 'Pod/a');
    assert.equal(describeResource({ apiVersion: 'v1', kind: 'Pod' }), 'Pod/(unnamed)');
    assert.deepEqual(standaloneResource({ apiVersion: 'v1', kind: 'Pod' }), {
      object: { apiVersion: 'v1', kind: 'Pod' },
      document: { apiVersion: 'v1', kind: 'Pod' },
      pointer: '',
      origin: {},
    });
  });
});

describe('what the kubelet sends', () => {
  it('expands $(VAR) from static env values the way Kubernetes does', () => {
    const env = new Map([
      ['A', 'x'],
      ['EMPTY', ''],
    ]);
    const cases: [string, string][] = [
      ['$(A)', 'x'],
      ['$(A)-$(A)', 'x-x'],
      ['pre$(A)post', 'prexpost'],
      ['$$(A)', '$(A)'],
      ['$(B)', '$(B)'],
      ['$(EMPTY)', ''],
      ['$(A', '$(A'],
      ['a$', 'a$'],
      ['$x', '$x'],
      ['$$', '$'],
      ['plain', 'plain'],
    ];
    for (const [input, expected] of cases) assert.equal(expandVariables(input, env), expected, input);
  });

  it('sends a path with a leading slash and without a fragment', () => {
    assert.deepEqual(['', 'healthz', '/healthz', 'a?b=1#frag', undefined].map(requestPath), ['/', '/healthz', '/healthz', '/a?b=1', '/']);
  });
});

describe('where pod specs are found', () => {
  const sitesIn = (object: unknown) => resourcesOfDocument(object, {}).flatMap(findPodSites);
  const containers = [{ name: 'app', image: 'example/app:1' }];
  const pointers = (object: unknown) => sitesIn(object).map((site) => site.pointer);

  it('in a built-in workload, at its kind’s place, only when the spec names containers', () => {
    const deployment = (spec: unknown, apiVersion = 'apps/v1') => ({ apiVersion, kind: 'Deployment', metadata: { name: 'd' }, spec: { template: { spec } } });
    assert.deepEqual(pointers(deployment({ containers })), ['/spec/template/spec']);
    assert.deepEqual(pointers(deployment({ containers }, 'extensions/v1beta1')), ['/spec/template/spec'], 'the old extensions group');
    assert.deepEqual(pointers(deployment({})), []);
    assert.deepEqual(pointers(deployment({ containers: null })), []);
    assert.deepEqual(pointers({ apiVersion: 'batch/v1', kind: 'CronJob', spec: { jobTemplate: { spec: { template: { spec: { containers } } } } } }), [
      '/spec/jobTemplate/spec/template/spec',
    ]);
    // The same kind name in someone else's group is a custom resource, searched as one.
    assert.deepEqual(pointers(deployment({ containers }, 'apps.example.com/v1')), ['/spec/template/spec']);
    assert.deepEqual(pointers(deployment({ containers: [{ name: 'app' }] }, 'apps.example.com/v1')), [], 'no image: not a pod spec there');
  });

  it('in an OpenShift DeploymentConfig at its template, even when an image-change trigger leaves image out', () => {
    for (const apiVersion of ['apps.openshift.io/v1', 'v1']) {
      const config = (spec: unknown) => ({ apiVersion, kind: 'DeploymentConfig', spec: { template: { spec } } });
      assert.deepEqual(pointers(config({ containers: [{ name: 'app' }] })), ['/spec/template/spec'], apiVersion);
      assert.deepEqual(pointers(config({ containers: [] })), [], `${apiVersion}: no containers`);
      assert.deepEqual(pointers(config({ containers: 'app' })), [], `${apiVersion}: containers that are no list`);
      assert.deepEqual(pointers({ apiVersion, kind: 'DeploymentConfig', spec: {} }), [], `${apiVersion}: no template`);
    }
  });

  it("in a custom resource anywhere under spec, in lists too, only in pod-spec-shaped objects, never in Kubernetes' own groups", () => {
    const custom = (spec: unknown, apiVersion = 'example.com/v1') => ({ apiVersion, kind: 'Thing', spec });
    assert.deepEqual(pointers(custom({ workers: [{ name: 'a' }, { template: { spec: { containers } } }] })), ['/spec/workers/1/template/spec']);
    assert.deepEqual(pointers(custom({ a: { containers }, b: { containers } })), ['/spec/a', '/spec/b'], 'every one, and a match is not searched further');
    assert.deepEqual(pointers(custom({ overrides: { containers: [{ name: 'app', env: [] }] } })), [], 'containers without an image are overrides, not pods');
    assert.deepEqual(pointers(custom({ overrides: { containers: [...containers, 'app'] } })), [], 'every container an object');
    assert.deepEqual(pointers(custom({ overrides: { containers: [] } })), []);
    for (const apiVersion of ['v1', 'policy/v1', 'networking.k8s.io/v1', 'storage.k8s.io/v1'])
      assert.deepEqual(pointers(custom({ template: { spec: { containers } } }, apiVersion)), [], apiVersion);
    assert.deepEqual(
      pointers(custom({ template: { spec: { containers } } }, 'example.k8s.io.evil.com/v1')),
      ['/spec/template/spec'],
      'only a group ending in .k8s.io is Kubernetes',
    );
  });

  it('in a custom resource, down to depth 10 below the object, each shared node once', () => {
    const nested = (depth: number) => {
      let node: unknown = { containers };
      for (let level = 1; level < depth; level++) node = { next: node };
      return { apiVersion: 'example.com/v1', kind: 'Thing', spec: node };
    };
    assert.equal(pointers(nested(10)).length, 1, 'spec at depth 10');
    assert.deepEqual(pointers(nested(11)), [], 'deeper is not searched');
    const shared = { containers };
    assert.deepEqual(pointers({ apiVersion: 'example.com/v1', kind: 'Thing', spec: { a: shared, b: shared } }), ['/spec/a'], 'an alias is one pod spec');
  });

  it('in a custom resource, past nulls and long text, which cost the search nothing', () => {
    // 20,000 different characters: were the text searched letter by letter, the pod spec would be past the bound.
    const text = String.fromCodePoint(...Array.from({ length: 20_000 }, (_, index) => 0x4e00 + index));
    assert.deepEqual(pointers({ apiVersion: 'example.com/v1', kind: 'Thing', spec: { empty: null, text, pod: { containers } } }), ['/spec/pod']);
  });

  it('in a custom resource, among the first 20,000 nodes looked at', () => {
    // Looked at in order: spec, the list, each filler, then the pod spec: found when it is node 20,000.
    const withFillers = (count: number) => ({
      apiVersion: 'example.com/v1',
      kind: 'Thing',
      spec: { fillers: Array.from({ length: count }, () => ({})), pod: { containers } },
    });
    assert.deepEqual(pointers(withFillers(20_000 - 3)), ['/spec/pod']);
    assert.deepEqual(pointers(withFillers(20_000 - 2)), []);
  });

  it("in a KubeRay group template, the first container's probes are the operator's", () => {
    const group = () => ({
      template: {
        spec: {
          containers: [
            { name: 'ray-head', image: 'ray' },
            { name: 'sidecar', image: 's' },
          ],
        },
      },
    });
    const added = (apiVersion: string) =>
      sitesIn({ apiVersion, kind: 'RayCluster', spec: { headGroupSpec: group(), workerGroupSpecs: [group()] } }).map((site) =>
        site.containers.map((container) => container.probesAddedBy),
      );
    assert.deepEqual(added('ray.io/v1'), [
      ['KubeRay', undefined],
      ['KubeRay', undefined],
    ]);
    assert.deepEqual(added('ray.example.com/v1'), [
      [undefined, undefined],
      [undefined, undefined],
    ]);
  });

  it('with the metadata beside the spec, and none for a pod spec found elsewhere in a custom resource', () => {
    const [pod] = sitesIn({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers } });
    assert.deepEqual(pod!.podMetadata, { name: 'p' });
    const [custom] = sitesIn({ apiVersion: 'example.com/v1', kind: 'Thing', spec: { worker: { containers, labels: { a: 'b' } } } });
    assert.equal(custom!.podMetadata, undefined);
    const [item] = sitesIn({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'listed' }, spec: { containers } }] });
    assert.deepEqual(item!.podMetadata, { name: 'listed' }, 'a List item');
    const [templated] = sitesIn({
      apiVersion: 'example.com/v1',
      kind: 'Thing',
      spec: { template: { metadata: { labels: { a: 'b' } }, spec: { containers } } },
    });
    assert.deepEqual(templated!.podMetadata, { labels: { a: 'b' } });
  });

  it('with each container’s role and restart policy, and whether the pod runs to completion', () => {
    const [site] = sitesIn({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', annotations: { a: 'b' } },
      spec: {
        restartPolicy: 'Never',
        containers: [{ name: 'app', image: 'x', restartPolicy: 'Always' }, { image: 'y' }],
        initContainers: [
          { name: 'proxy', image: 'p', restartPolicy: 'Always' },
          { name: 'migrate', image: 'm', restartPolicy: 'Never' },
        ],
        ephemeralContainers: [{ name: 'debug', image: 'd' }],
      },
    });
    assert.deepEqual(
      site!.containers.map((container) => [container.name, container.role, container.restartPolicy, container.longRunning, container.pointer]),
      [
        // Its own policy Always (ContainerRestartRules, beta and on since 1.35): it runs until stopped, in a pod whose policy is Never.
        ['app', 'container', 'Always', true, '/spec/containers/0'],
        ['#1', 'container', 'Never', false, '/spec/containers/1'],
        // A sidecar lives as long as a regular container that runs until stopped.
        ['proxy', 'sidecar', 'Always', true, '/spec/initContainers/0'],
        ['migrate', 'init', 'Never', false, '/spec/initContainers/1'],
        ['debug', 'ephemeral', 'Never', false, '/spec/ephemeralContainers/0'],
      ],
    );
    assert.equal(site!.longRunning, true, 'one of its containers runs until stopped');
    const [nulls] = sitesIn({
      apiVersion: 'v1',
      kind: 'Pod',
      spec: {
        containers: [null, { name: 'app', image: 'x' }],
        initContainers: [{ name: 'setup', image: 's', restartPolicy: 'Never' }],
        restartPolicy: 'OnFailure',
      },
    });
    assert.deepEqual(
      nulls!.containers.map((container) => [container.name, container.pointer, container.restartPolicy]),
      [
        ['app', '/spec/containers/1', 'OnFailure'],
        ['setup', '/spec/initContainers/0', 'OnFailure'],
      ],
      "an entry that is no mapping is no container; an init container's own policy is not read",
    );
    assert.equal(nulls!.longRunning, false, 'restartPolicy OnFailure: every container runs to completion');
    const cronJob = sitesIn({ apiVersion: 'batch/v1', kind: 'CronJob', spec: { jobTemplate: { spec: { template: { spec: { containers } } } } } })[0]!;
    assert.deepEqual([cronJob.longRunning, cronJob.containers[0]!.restartPolicy], [false, 'OnFailure'], 'a CronJob runs to completion');
    assert.deepEqual(site!.podMetadata, { name: 'p', annotations: { a: 'b' } }, "a Pod's own metadata");
    const job = sitesIn({ apiVersion: 'batch/v1', kind: 'Job', spec: { template: { metadata: { labels: { x: 'y' } }, spec: { containers } } } })[0]!;
    assert.deepEqual([job.longRunning, job.containers[0]!.restartPolicy, job.podMetadata], [false, 'OnFailure', { labels: { x: 'y' } }]);
    const deployment = sitesIn({ apiVersion: 'apps/v1', kind: 'Deployment', spec: { template: { spec: { containers, restartPolicy: 'Sometimes' } } } })[0]!;
    assert.deepEqual(
      [deployment.longRunning, deployment.containers[0]!.restartPolicy, deployment.podMetadata],
      [true, 'Always', undefined],
      'an unknown policy is the default',
    );
    assert.equal(sitesIn({ apiVersion: 'serving.knative.dev/v1', kind: 'Service', spec: { template: { spec: { containers } } } })[0]!.platform, 'knative');
    assert.equal(deployment.platform, 'kubernetes');
  });
});

describe('the check a probe runs, as the kubelet sends it', () => {
  /** Whether two probes (YAML of the probe body, under a container with `extra`) run the same check. */
  const same = (a: string, b: string, extra = '') => {
    const indent = (text: string) => text.replace(/^/gm, '  ');
    const [site] = sitesOf(podYaml(`${extra}livenessProbe:\n${indent(a)}\nreadinessProbe:\n${indent(b)}`));
    const container = site!.containers[0]!;
    const liveness = checkIdentity(effectiveProbe(container, 'liveness')!, container.container);
    const readiness = checkIdentity(effectiveProbe(container, 'readiness')!, container.container);
    assert.notEqual(liveness, undefined);
    return liveness === readiness;
  };

  it('exec: the command after $(VAR) expansion from the static env; valueFrom expands to nothing', () => {
    assert.equal(same('exec: {command: [sh, -c, check]}', 'exec: {command: [sh, -c, check]}'), true);
    assert.equal(same('exec: {command: [sh, -c, check]}', 'exec: {command: [sh, -c, check, --deep]}'), false);
    const env = 'env:\n  - {name: PORT, value: "8080"}\n  - {name: SECRET, valueFrom: {secretKeyRef: {name: s, key: k}}}\n  - null\n  - {value: orphan}\n';
    assert.equal(same('exec: {command: [check, "$(PORT)"]}', 'exec: {command: [check, "8080"]}', env), true);
    assert.equal(same('exec: {command: [check, "$(SECRET)"]}', 'exec: {command: [check, ""]}', env), true);
    assert.equal(same('exec: {command: [check, "$(NONE)"]}', 'exec: {command: [check, ""]}', env), false, 'an unknown variable is kept as written');
    assert.equal(same('exec: {command: [check, 8080]}', 'exec: {command: [check, 8080]}'), true);
    assert.equal(same('exec: {}', 'exec: {command: []}'), true, 'no command is an empty one');
  });

  it('httpGet: scheme in any case, header names in any case and order, path as sent; host, port and header values as written', () => {
    assert.equal(same('httpGet: {port: 80, scheme: https}', 'httpGet: {port: 80, scheme: HTTPS}'), true);
    assert.equal(same('httpGet: {port: 80}', 'httpGet: {port: 80, scheme: HTTP}'), true, 'HTTP is the default scheme');
    assert.equal(same('httpGet: {port: 80, scheme: HTTPS}', 'httpGet: {port: 80}'), false);
    assert.equal(same('httpGet: {port: 80, path: healthz}', 'httpGet: {port: 80, path: /healthz}'), true);
    assert.equal(same('httpGet: {port: 80, path: /healthz}', 'httpGet: {port: 80, path: /ready}'), false);
    assert.equal(same('httpGet: {port: 80}', 'httpGet: {port: 81}'), false);
    assert.equal(same('httpGet: {port: 80, host: a.example}', 'httpGet: {port: 80, host: b.example}'), false);
    assert.equal(same('httpGet: {port: 80, host: a.example}', 'httpGet: {port: 80}'), false);
    assert.equal(same('httpGet: {port: 80, host: ""}', 'httpGet: {port: 80}'), true, 'an empty host is the pod IP, as no host is');
    const headers = 'httpGet:\n  port: 80\n  httpHeaders: [{name: X-Probe, value: "1"}, {name: Accept, value: json}]';
    assert.equal(same(headers, 'httpGet:\n  port: 80\n  httpHeaders: [{name: accept, value: json}, {name: x-probe, value: "1"}, null]'), true);
    assert.equal(same(headers, 'httpGet:\n  port: 80\n  httpHeaders: [{name: Accept, value: JSON}, {name: X-Probe, value: "1"}]'), false);
    assert.equal(same(headers, 'httpGet: {port: 80}'), false);
  });

  it('tcpSocket and grpc: host, port and service; a named port is the number it names; handlers never equal one another', () => {
    const ports = 'ports:\n  - {name: web, containerPort: 8080}\n';
    assert.equal(same('tcpSocket: {port: web}', 'tcpSocket: {port: 8080}', ports), true);
    assert.equal(same('tcpSocket: {port: 8080, host: db}', 'tcpSocket: {port: 8080}'), false);
    assert.equal(same('tcpSocket: {port: 8080, host: db}', 'tcpSocket: {port: 8080, host: cache}'), false);
    assert.equal(same('tcpSocket: {port: 8080, host: ""}', 'tcpSocket: {port: 8080}'), true);
    assert.equal(same('tcpSocket: {port: 8080}', 'tcpSocket: {port: 8081}'), false);
    assert.equal(same('grpc: {port: 9000}', 'grpc: {port: 9000, service: ""}'), true);
    assert.equal(same('grpc: {port: 9000, service: a}', 'grpc: {port: 9000, service: b}'), false);
    assert.equal(same('grpc: {port: 9000}', 'grpc: {port: 9001}'), false);
    assert.equal(same('grpc: {port: 8080}', 'tcpSocket: {port: 8080}'), false);
    assert.equal(same('tcpSocket: {port: 80}', 'httpGet: {port: 80}'), false);
  });

  it('a probe with no handler has no check', () => {
    const [site] = sitesOf(podYaml('livenessProbe: {periodSeconds: 5}'));
    const container = site!.containers[0]!;
    assert.equal(checkIdentity(effectiveProbe(container, 'liveness')!, container.container), undefined);
  });
});
