// Repositories as they are found: one layout per case (test/fixtures/layouts), each linted with
// default options by the real helm and kubectl, with the exact file:line:column of every finding,
// the input problems and notices, and the exit code.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { discover } from '../src/source/read/discover.js';
import { podYaml, ROOT, runCli, type JsonFinding } from './helpers.js';
import { helmBinary, kubectlBinary } from './tools.js';

const LAYOUTS = join(ROOT, 'test/fixtures/layouts');
let tools: string[];
before(() => {
  tools = ['--helm', helmBinary(), '--kustomize', kubectlBinary()];
});

/** `file:line:column severity rule` of every finding, input problems as `file input: message`, and what went to stderr. */
function lintLayout(path: string, cwd = LAYOUTS) {
  const run = runCli([path, ...tools, '--format', 'json'], { cwd });
  const output = JSON.parse(run.stdout) as {
    findings: JsonFinding[];
    inputErrors: { file: string; message: string }[];
    summary: Record<string, number>;
  };
  return {
    code: run.code,
    findings: output.findings
      .map((finding) => `${finding.file}:${finding.line}:${finding.column} ${finding.severity} ${finding.rule} ${finding.container}`)
      .sort(),
    inputErrors: output.inputErrors.map((error) => `${error.file}: ${error.message}`),
    notices: run.stderr.trim().split('\n').filter(Boolean),
    raw: output,
  };
}

describe('repository layouts', () => {
  it('a chart whose dependencies were never fetched: one input problem naming them, the command, and each rendering that fails without them; its own templates linted', () => {
    const result = lintLayout('missing-dependency');
    assert.equal(result.code, 2);
    assert.deepEqual(result.inputErrors, [
      'missing-dependency/app/Chart.yaml: the chart\'s dependencies are not in missing-dependency/app/charts: redis 18.1.0 from https://charts.example.com/stable, common 2.x.x from oci://registry.example.com/charts; run `helm dependency build missing-dependency/app` (it needs the network) to fetch them; its own templates are linted without them where they render; not rendered with missing-dependency/app/ci/redis-values.yaml: executing "app/templates/cache-config.yaml" at <include "redis.fullname" .Subcharts.redis>: error calling include: template: no template "redis.fullname" associated with template "gotpl"',
    ]);
    assert.deepEqual(result.findings, ['missing-dependency/app/templates/deployment.yaml:17:13 warning timeout-not-below-period app']);
  });

  it('a library chart is skipped with a notice, not an error', () => {
    const result = lintLayout('library');
    assert.equal(result.code, 0);
    assert.deepEqual(result.inputErrors, []);
    assert.deepEqual(result.notices, [
      'probe-lint: skipped library chart library/common (type: library renders nothing by itself; the charts that use it are linted)',
    ]);
  });

  it('a probe written in a named template (_pod.tpl) is pointed at there, not at the spec: above the include', () => {
    const result = lintLayout('named-templates');
    assert.equal(result.code, 1);
    assert.deepEqual(result.findings, ['named-templates/web/templates/_pod.tpl:11:7 warning timeout-not-below-period web']);
  });

  it('named templates in a subfolder of templates/, in _*.yaml partials and in a dependency chart are where their findings go, container by container; a define the template never includes is never searched; a template of two objects, each in its own document', () => {
    const result = lintLayout('partials');
    assert.equal(result.code, 1);
    assert.deepEqual(result.findings, [
      'partials/shop/charts/db/templates/_pod.tpl:3:5 info missing-liveness-probe postgres',
      'partials/shop/charts/db/templates/_pod.tpl:8:7 warning timeout-not-below-period postgres',
      'partials/shop/templates/_containers.yaml:3:3 warning missing-readiness-probe web',
      'partials/shop/templates/_containers.yaml:9:5 warning timeout-not-below-period web',
      'partials/shop/templates/memcached/_statefulset.tpl:16:11 info missing-readiness-probe memcached',
      'partials/shop/templates/memcached/_statefulset.tpl:23:13 warning timeout-not-below-period memcached',
      'partials/shop/templates/workers.yaml:16:11 warning liveness-mirrors-readiness indexer',
      'partials/shop/templates/workers.yaml:35:11 warning liveness-mirrors-readiness mailer',
      'partials/shop/templates/workers.yaml:38:13 warning timeout-not-below-period mailer',
    ]);
  });

  it('a container an inner overlay adds is found in that patch, though an outer patch touches the same list; a field the outer patch sets, in the outer patch; a container a JSON 6902 patch appends, in its operation', () => {
    const result = lintLayout('chained-patches/overlays/prod');
    assert.equal(result.code, 1);
    assert.deepEqual(result.findings, [
      'chained-patches/overlays/prod/add-cache.yaml:10:7 warning timeout-not-below-period cache',
      'chained-patches/overlays/prod/add-cache.yaml:4:3 info missing-readiness-probe cache',
      'chained-patches/overlays/prod/add-cache.yaml:8:7 info exec-probe-dense-cluster cache',
      'chained-patches/overlays/prod/resources.yaml:15:13 warning timeout-not-below-period api',
      'chained-patches/overlays/with-sidecar/sidecar.yaml:12:11 warning liveness-mirrors-readiness proxy',
      'chained-patches/overlays/with-sidecar/sidecar.yaml:14:13 warning timeout-not-below-period proxy',
    ]);
  });

  it('templated container names (and a conditional sidecar first) keep each finding on its own container', () => {
    const result = lintLayout('templated-names');
    assert.equal(result.code, 1);
    assert.deepEqual(result.findings, [
      'templated-names/api/templates/deployment.yaml:16:11 warning liveness-mirrors-readiness api-proxy',
      'templated-names/api/templates/deployment.yaml:28:13 warning timeout-not-below-period api-server',
      'templated-names/api/templates/deployment.yaml:31:13 error readiness-termination-grace-period api-server',
    ]);
  });

  it('a chart whose defaults fail on a required value is rendered with its ci/ values only, as chart-testing does', () => {
    const result = lintLayout('required-values');
    assert.equal(result.code, 1);
    assert.deepEqual(result.inputErrors, []);
    assert.deepEqual(result.notices, [
      'probe-lint: rendered chart required-values/worker with its ci/ values only: with its defaults alone it does not render (Error: execution error at (worker/templates/deployment.yaml:6:14): queue is required)',
    ]);
    assert.deepEqual(result.findings, [
      'required-values/worker/templates/deployment.yaml:15:11 info missing-readiness-probe worker',
      'required-values/worker/templates/deployment.yaml:19:13 warning timeout-not-below-period worker',
    ]);
    assert.doesNotMatch(JSON.stringify(result.raw), /--debug/);
  });

  it('a chart with no ci/ values whose defaults do not render is rendered with the values files beside values.yaml, and says so', () => {
    const result = lintLayout('side-values');
    assert.equal(result.code, 1);
    assert.deepEqual(result.inputErrors, []);
    assert.deepEqual(result.findings, ['side-values/api/templates/deployment.yaml:17:13 warning timeout-not-below-period api']);
    assert.equal(result.notices.length, 1);
    assert.match(
      result.notices[0]!,
      /^probe-lint: rendered chart side-values\/api with side-values\/api\/values-dev\.yaml, side-values\/api\/values-prod\.yaml: with its defaults alone it does not render \(.*nil pointer evaluating interface \{\}\.timeout\)$/,
    );
  });

  it('a kustomization that inflates a local chart (helmCharts:) lints the chart with its values and its own files', () => {
    const result = lintLayout('helm-charts');
    assert.equal(result.code, 1);
    assert.deepEqual(result.inputErrors, []);
    assert.deepEqual(result.findings, [
      'helm-charts/deploy/charts/cache/templates/statefulset.yaml:14:11 info missing-liveness-probe cache',
      'helm-charts/deploy/charts/cache/templates/statefulset.yaml:18:13 warning timeout-not-below-period cache',
    ]);
    assert.match(
      result.notices[0]!,
      /^probe-lint: kustomization helm-charts\/deploy inflates Helm charts \(helmCharts:\): helm-charts\/deploy\/charts\/cache linted as charts with their values, and its 1 local resource file as written/,
    );
  });

  it('similar names in one file (web, web-canary) map each object to its own document, after namePrefix', () => {
    const result = lintLayout('similar-names');
    assert.equal(result.code, 1);
    assert.deepEqual(result.findings, [
      'similar-names/app/deployments.yaml:13:11 info missing-readiness-probe web',
      'similar-names/app/deployments.yaml:30:11 info missing-readiness-probe web',
      'similar-names/app/deployments.yaml:34:13 warning timeout-not-below-period web',
    ]);
  });

  it("a Service selects the pods deployed with it (same directory, rendering or build), not another app's or test data's", () => {
    const result = lintLayout('separate-apps');
    assert.deepEqual(result.findings, [
      'separate-apps/shop/deployment.yaml:12:11 warning missing-readiness-probe web',
      'separate-apps/testdata/deployment.yaml:12:11 info missing-readiness-probe web',
    ]);
  });

  it("a key written in several branches (if custom … else if enabled …) is found in the branch the rendering's values took; a container with no name line by its place", () => {
    const result = lintLayout('branches');
    assert.equal(result.code, 1);
    assert.deepEqual(result.findings, [
      'branches/db/templates/statefulset.yaml:20:9 info missing-readiness-probe db-server',
      'branches/db/templates/statefulset.yaml:24:11 info exec-probe-dense-cluster db-server',
      'branches/db/templates/statefulset.yaml:24:11 warning timeout-not-below-period db-server',
      'branches/db/templates/statefulset.yaml:26:11 warning timeout-not-below-period db-server',
    ]);
    // Each branch's findings come from the rendering that took it.
    const valuesOf = (line: number) => result.raw.findings.filter((finding) => finding.line === line).map((finding) => finding.rendered?.values);
    assert.deepEqual(valuesOf(24), ['branches/db/ci/custom-values.yaml', 'branches/db/ci/custom-values.yaml']);
    assert.deepEqual(valuesOf(26), [undefined]);
    // The chart rendered twice (defaults, ci/custom-values.yaml): its one object is counted once.
    assert.deepEqual(result.raw.summary, { charts: 1, renderings: 2, files: 0, resources: 1, containers: 1, errors: 0, warnings: 2, infos: 2 });
    assert.match(runCli(['branches', ...tools], { cwd: LAYOUTS }).stdout, /in 1 chart \(2 renderings\), 1 resource, 1 container\n$/);
  });

  it("a dependency helm renders under its own name instead of its alias is still found in the repository's chart, at the branch its values take", () => {
    const result = lintLayout('aliased/app');
    assert.equal(result.code, 0);
    assert.deepEqual(result.findings, [
      'aliased/cache/templates/deployment.yaml:14:11 info missing-readiness-probe cache',
      'aliased/cache/templates/deployment.yaml:19:11 info liveness-without-startup-probe cache',
    ]);
  });

  it('a key a template writes and a tpl string repeats is pointed at in the template, where the user sees the first', () => {
    const result = lintLayout('duplicates');
    assert.equal(result.code, 1);
    assert.deepEqual(result.findings, ['duplicates/monitor/templates/monitor.yaml:7:3 warning duplicate-key null']);
    assert.equal(result.raw.findings[0]!.pointer, '/spec/logLevel');
  });

  it('a file two kustomizations fall back to is linted once, and counted once', () => {
    const result = lintLayout('shared-fallback');
    assert.equal(result.code, 2);
    assert.deepEqual(result.findings, [
      'shared-fallback/common/worker.yaml:13:11 info missing-readiness-probe worker',
      'shared-fallback/common/worker.yaml:17:13 warning timeout-not-below-period worker',
    ]);
    assert.equal(result.raw.summary.resources, 1);
    assert.equal(result.inputErrors.length, 2, 'each kustomization says why it was not built');
  });

  it('renderings that only rename an object fold into one finding that names the others, and the object counts once', () => {
    const result = lintLayout('renamed-renderings');
    assert.deepEqual(result.findings, ['renamed-renderings/web/templates/deployment.yaml:17:13 warning timeout-not-below-period web']);
    const [finding] = result.raw.findings;
    assert.deepEqual(finding!.alsoIn, ['Deployment/web-blue', 'Deployment/web-canary']);
    assert.match(finding!.message, / The same in 3 renderings; the others: Deployment\/web-blue, Deployment\/web-canary\.$/);
    assert.deepEqual([result.raw.summary.renderings, result.raw.summary.resources, result.raw.summary.containers], [3, 1, 1]);
  });

  it('never reports two findings of one rule at one place for one object, container and field, in any layout', () => {
    for (const layout of readdirSync(LAYOUTS)) {
      if (layout === 'packaged') continue; // needs its archive built (above)
      const seen = new Set<string>();
      for (const finding of lintLayout(layout).raw.findings) {
        const key = JSON.stringify([finding.rule, finding.file, finding.line, finding.resource, finding.container, finding.pointer]);
        assert.ok(!seen.has(key), `${layout}: ${key} twice`);
        seen.add(key);
      }
    }
  });

  it('outside a git work tree, the tree is the input itself: an overlay reaches its ../../base only with --root naming a wider one, which the refusal says', () => {
    const work = mkdtempSync(join(tmpdir(), 'probe-lint-no-git-'));
    cpSync(join(ROOT, 'test/fixtures/repo/kustomize'), join(work, 'kustomize'), { recursive: true });
    const alone = lintLayout('kustomize/overlays/staging', work);
    assert.equal(alone.code, 2);
    assert.match(
      alone.inputErrors[0]!,
      /^kustomize\/overlays\/staging\/kustomization\.yaml: cannot build the kustomization .*refers to \.\.\/\.\.\/base, which is .*kustomize\/base, outside the tree being linted \(the git work tree holding the input, else the input itself; --root DIR names a wider one\)/,
    );
    const rooted = runCli(['kustomize/overlays/staging', '--root', '.', ...tools, '--format', 'json'], { cwd: work });
    const output = JSON.parse(rooted.stdout) as { findings: JsonFinding[]; inputErrors: unknown[] };
    assert.deepEqual(output.inputErrors, []);
    assert.ok(
      output.findings.some((finding) => finding.file === 'kustomize/base/deployment.yaml'),
      rooted.stdout,
    );
  });

  it('a chart linted from a directory that is no git work tree reads only its own files: a template linked to a file beside the chart is refused', () => {
    const home = mkdtempSync(join(tmpdir(), 'probe-lint-home-'));
    cpSync(join(ROOT, 'test/fixtures/repo/charts/gateway'), join(home, 'web'), { recursive: true });
    writeFileSync(join(home, 'private.yaml'), 'kind: ConfigMap\napiVersion: v1\nmetadata: {name: home-secret}\n');
    symlinkSync(join(home, 'private.yaml'), join(home, 'web/templates/linked.yaml'));
    const result = lintLayout('web', home);
    assert.equal(result.code, 2);
    assert.match(result.inputErrors.join('\n'), /web\/templates\/linked\.yaml is a symbolic link to .*private\.yaml, outside the tree being linted/);
    assert.ok(!JSON.stringify(result.raw).includes('home-secret'));
  });

  it('a packaged subchart (charts/*.tgz): findings name the archive, which exists, and the template inside it', () => {
    const work = mkdtempSync(join(tmpdir(), 'probe-lint-packaged-'));
    cpSync(join(LAYOUTS, 'packaged'), work, { recursive: true });
    execFileSync(helmBinary(), ['package', join(work, 'sources/db'), '-d', join(work, 'shop/charts')], { stdio: 'ignore' });
    const result = lintLayout('shop', work);
    assert.equal(result.code, 1);
    assert.deepEqual(result.inputErrors, []);
    assert.deepEqual(result.findings, [
      'shop/charts/db-0.3.0.tgz:null:null error readiness-termination-grace-period db',
      'shop/charts/db-0.3.0.tgz:null:null info missing-liveness-probe db',
    ]);
    const error = result.raw.findings.find((finding) => finding.rule === 'readiness-termination-grace-period');
    assert.equal(error?.rendered?.inside, 'db/templates/statefulset.yaml');
    const text = runCli(['shop', ...tools, '--format', 'compact'], { cwd: work }).stdout;
    assert.match(
      text,
      /^shop\/charts\/db-0\.3\.0\.tgz: error \[readiness-termination-grace-period\] .*\(db\/templates\/statefulset\.yaml in the archive; helm template shop, line \d+:\d+\)$/m,
    );
  });

  it('a file:// dependency committed as a link in charts/ (a library chart shared by its charts) renders, and the other inputs are linted too', () => {
    const work = mkdtempSync(join(tmpdir(), 'probe-lint-linked-dependency-'));
    execFileSync('git', ['init', '-q'], { cwd: work });
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), text);
    };
    write('charts/library/Chart.yaml', 'apiVersion: v2\nname: library\nversion: 0.1.0\ntype: library\n');
    write('charts/library/templates/_names.tpl', '{{- define "library.name" -}}{{ .Release.Name }}-web{{- end -}}\n');
    write(
      'charts/app/Chart.yaml',
      'apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - name: library\n    version: 0.1.0\n    repository: file://../library\n',
    );
    write(
      'charts/app/templates/deployment.yaml',
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: {name: {{ include "library.name" . }}}',
        'spec:',
        '  selector: {matchLabels: {app: web}}',
        '  template:',
        '    metadata: {labels: {app: web}}',
        '    spec:',
        '      containers:',
        '        - name: web',
        '          image: web:1',
        '          readinessProbe: {httpGet: {path: /ready, port: 8080}, terminationGracePeriodSeconds: 5}',
        '',
      ].join('\n'),
    );
    mkdirSync(join(work, 'charts/app/charts'));
    // As the repository commits it: helm dependency update would have copied the chart, a link shares it.
    symlinkSync('../../library', join(work, 'charts/app/charts/library'));
    write('plain.yaml', podYaml('readinessProbe: {httpGet: {path: /ready, port: 8080}, terminationGracePeriodSeconds: 5}'));
    const result = lintLayout('.', work);
    assert.deepEqual(result.inputErrors, []);
    assert.equal(result.code, 1);
    assert.deepEqual(
      result.findings.filter((finding) => finding.includes('readiness-termination-grace-period')),
      [
        'charts/app/templates/deployment.yaml:12:11 error readiness-termination-grace-period web',
        'plain.yaml:10:61 error readiness-termination-grace-period c',
      ],
    );
    rmSync(work, { recursive: true, force: true });
  });
});

describe('discovery answers from the directory listings as the disk would', () => {
  it('a Chart.yaml that is a link counts when it leads to a file, not when it dangles; a kustomization by its second name; a chart owns the files under it', () => {
    const root = mkdtempSync(join(tmpdir(), 'probe-lint-discovery-'));
    const write = (path: string, text: string) => {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    write('shared/Chart.yaml', 'apiVersion: v2\nname: linked\nversion: 1.0.0\n');
    write('linked/templates/deployment.yaml', 'kind: Deployment\n');
    symlinkSync('../shared/Chart.yaml', join(root, 'linked/Chart.yaml'));
    write('dangling/deployment.yaml', 'kind: Deployment\n');
    symlinkSync('../nowhere/Chart.yaml', join(root, 'dangling/Chart.yaml'));
    write('overlay/kustomization.yml', 'resources: [deployment.yaml]\n');
    write('overlay/deployment.yaml', 'kind: Deployment\n');
    write('plain/deployment.yaml', 'kind: Deployment\n');
    const found = discover([root]);
    assert.deepEqual(
      found.charts.map((chart) => chart.directory),
      [join(root, 'linked'), join(root, 'shared')],
    );
    assert.deepEqual(
      found.kustomizations.map((unit) => unit.file),
      [join(root, 'overlay/kustomization.yml')],
    );
    // The dangling link is a file of its own to the walk (reading it will say it cannot be read).
    assert.deepEqual(found.files, [join(root, 'dangling/Chart.yaml'), join(root, 'dangling/deployment.yaml'), join(root, 'plain/deployment.yaml')]);
  });
});

describe('what a repository cannot build, and what its config leaves out', () => {
  it('a kustomization that lists a file never committed, or needs a plugin, says so in a sentence, with paths relative to the working directory', () => {
    const result = lintLayout('.', join(LAYOUTS, 'excluded'));
    assert.equal(result.code, 2);
    assert.deepEqual(result.inputErrors, [
      'generated/overlay/kustomization.yaml: cannot build the kustomization (kubectl kustomize generated/overlay): generated/base/manifest.yaml does not exist (a file it or a base it builds on lists: generated by a script, or never committed?)',
      'plugin/kustomization.yaml: cannot build the kustomization (kubectl kustomize plugin): it needs the kustomize plugin TShirt, and probe-lint never runs a plugin or KRM function a repository brings; lint the built output instead: kustomize build --enable-alpha-plugins plugin | probe-lint -',
    ]);
    assert.deepEqual(result.findings, ['app/deployment.yaml:18:13 warning timeout-not-below-period app'], 'hack/ and **/testdata are excluded by the config');
  });

  it('the config excludes paths relative to its own directory, --exclude relative to the working directory, and a path given that is excluded is skipped with a notice', () => {
    const result = lintLayout('excluded', LAYOUTS);
    // Run from above, the config is not found (it is looked for from the working directory up): only --exclude counts.
    assert.deepEqual(
      result.inputErrors.map((error) => error.split(':')[0]),
      [
        'excluded/generated/overlay/kustomization.yaml',
        'excluded/plugin/kustomization.yaml',
        'excluded/app/testdata/broken.yaml',
        'excluded/hack/crd.template.yaml',
      ],
    );
    const cwd = join(LAYOUTS, 'excluded');
    const run = runCli(['hack/crd.template.yaml', 'app', '--exclude', 'plugin', '--exclude', 'generated/', ...tools, '--format', 'json'], { cwd });
    assert.equal(run.code, 1);
    assert.deepEqual(run.stderr.trim().split('\n'), ['probe-lint: skipped hack/crd.template.yaml: excluded by exclude: in .probe-lint.yaml']);
    const everything = runCli(['.', '--exclude', 'plugin', '--exclude', 'generated/', ...tools, '--format', 'json'], { cwd });
    assert.equal(everything.code, 1);
    assert.deepEqual((JSON.parse(everything.stdout) as { inputErrors: unknown[] }).inputErrors, []);
  });
});
