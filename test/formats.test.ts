// The CI formats, read back as their consumers read them: JUnit XML parsed (counts, failures at
// --fail-on only, names), GitLab Code Quality checked against the report's documented schema, and
// the markdown summary's table, links and escaping.
import assert from 'node:assert/strict';
import { Marked } from 'marked';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import AjvModule from 'ajv';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { RULES } from '../rules/index.js';
import { unknownCluster } from '../src/engine/cluster-facts.js';
import { Engine } from '../src/engine/engine.js';
import { reportChunks, formatReport } from '../src/report/formats.js';
import type { LocatedSuppressed, ReportInput } from '../src/report/located.js';
import { lintText, podYaml, ROOT, runCli } from './helpers.js';

const Ajv = AjvModule.default ?? AjvModule;

const manifest = `${podYaml('livenessProbe: {tcpSocket: {port: 80}, timeoutSeconds: 10}\nreadinessProbe: {tcpSocket: {port: 81}, terminationGracePeriodSeconds: 5}')}---
apiVersion: v1
kind: Pod
metadata: {name: "clean|pod"}
spec:
  containers:
    - name: web
      image: web:1
      livenessProbe: {tcpSocket: {port: 80}}
      readinessProbe: {httpGet: {path: /ready, port: 80}}
`;

function file(text: string): { directory: string; path: string } {
  const directory = mkdtempSync(join(tmpdir(), 'probe-lint-formats-'));
  writeFileSync(join(directory, 'pods.yaml'), text);
  return { directory, path: 'pods.yaml' };
}

describe('--format json', () => {
  const inputWith = (findings: ReportInput['findings'], suppressed: LocatedSuppressed[], showSuppressed: boolean): ReportInput => ({
    findings,
    objects: () => [],
    enabledRules: RULES.map((rule) => rule.meta.id),
    failOn: 'warning',
    suppressed,
    inputErrors: [{ file: 'broken.yaml', kind: 'yaml', message: 'not YAML' }],
    summary: { files: 1, resources: 1, containers: 1, errors: 0, warnings: findings.length, infos: 0 },
    hidden: 0,
    rules: RULES,
    showSuppressed,
    color: false,
    columns: undefined,
    toolVersion: '0.0.0',
    generatedAt: new Date(0),
  });
  const { located } = lintText(podYaml('livenessProbe:\n  tcpSocket:\n    port: 80\n  timeoutSeconds: 10\nreadinessProbe:\n  tcpSocket:\n    port: 81'));
  const suppressed = located.map((finding) => ({ ...finding, suppression: { by: 'annotation' as const, reason: 'probe-lint.dev/ignore' } }));

  it('is written in chunks as the findings go, and the chunks are exactly JSON.stringify with two spaces (SARIF too)', async () => {
    const many = Array.from({ length: 500 }, () => located[0]!);
    const cases: [ReportInput['findings'], boolean][] = [
      [many, true],
      [many, false],
      [[], true],
      [[], false],
    ];
    for (const [findings, showSuppressed] of cases) {
      const input = inputWith(findings, findings.length === 0 ? [] : suppressed, showSuppressed);
      for (const format of ['json', 'sarif'] as const) {
        const chunks = [...(await reportChunks(format, input))];
        const text = chunks.join('');
        const what = `${format}, ${findings.length} findings, suppressed ${showSuppressed ? 'shown' : 'hidden'}`;
        assert.equal(text, await formatReport(format, input), what);
        assert.equal(text, JSON.stringify(JSON.parse(text), null, 2) + '\n', what);
        // 500 findings of about 1 KB: more than one 64 KiB chunk, none far past it but the first and
        // the last, which also carry what comes before and after the list (SARIF's rules and their help).
        if (findings.length > 0) {
          assert.ok(chunks.length > 2 && chunks.slice(1, -1).every((chunk) => chunk.length < 80 * 1024), `${what}: ${chunks.length} chunks`);
        }
      }
      const parsed = JSON.parse(await formatReport('json', input)) as { findings: unknown[]; suppressed?: unknown[]; inputErrors: unknown[] };
      assert.equal(parsed.findings.length, findings.length);
      assert.equal(parsed.suppressed?.length, showSuppressed ? (findings.length === 0 ? 0 : suppressed.length) : undefined);
      assert.deepEqual(parsed.inputErrors, [{ file: 'broken.yaml', kind: 'yaml', message: 'not YAML' }]);
      const sarif = JSON.parse(await formatReport('sarif', input)) as { runs: { results: unknown[] }[] };
      assert.equal(sarif.runs[0]!.results.length, findings.length);
    }
  });

  it('writes text in chunks too: whole lines, the groups of files in order, the summary last', async () => {
    const many = Array.from({ length: 500 }, () => located[0]!);
    for (const showSuppressed of [true, false]) {
      const input = inputWith(many, suppressed, showSuppressed);
      const chunks = [...(await reportChunks('text', input))];
      const what = `suppressed ${showSuppressed ? 'shown' : 'hidden'}`;
      assert.ok(chunks.length > 2 && chunks.slice(1, -1).every((chunk) => chunk.length < 80 * 1024), `${what}: ${chunks.length} chunks`);
      assert.ok(
        chunks.every((chunk) => chunk.endsWith('\n')),
        `${what}: a chunk ends mid-line`,
      );
      const lines = chunks.join('').split('\n');
      assert.equal(lines.pop(), '');
      const headers = lines.filter((line) => line !== '' && !line.startsWith('  '));
      const file = located[0]!.file!;
      assert.deepEqual(headers.slice(0, -1), ['broken.yaml', file].sort(), what);
      assert.match(headers.at(-1)!, /1 input error/, what);
      const entries = lines.filter((line) => line.startsWith('  '));
      assert.equal(entries.filter((line) => line.includes('[suppressed by annotation')).length, showSuppressed ? suppressed.length : 0, what);
      assert.equal(entries.length, 1 + many.length + (showSuppressed ? suppressed.length : 0), what);
    }
  });

  it('writes compact in chunks too: whole lines, one per input error and finding, the summary last', async () => {
    const many = Array.from({ length: 1000 }, () => located[0]!);
    const input = inputWith(many, suppressed, false);
    const chunks = [...(await reportChunks('compact', input))];
    assert.ok(chunks.length > 2 && chunks.slice(1, -1).every((chunk) => chunk.length < 80 * 1024), `${chunks.length} chunks`);
    assert.ok(
      chunks.every((chunk) => chunk.endsWith('\n')),
      'a chunk ends mid-line',
    );
    const lines = chunks.join('').split('\n');
    assert.equal(lines.pop(), '');
    assert.equal(lines.length, 1 + many.length + 1);
    assert.match(lines[0]!, /^broken\.yaml: error \[input\] not YAML$/);
    assert.equal(lines.slice(1, -1).filter((line) => line.startsWith(`${located[0]!.file}:`)).length, many.length);
    assert.match(lines.at(-1)!, /1 input error/);
  });
});

describe('--format junit', () => {
  it('is well-formed JUnit XML: a test case per object and rule, failures for findings at or above --fail-on only', () => {
    const { directory, path } = file(manifest);
    const run = runCli([path, '--format', 'junit', '--fail-on', 'error'], { cwd: directory });
    assert.equal(run.code, 1);
    assert.equal(XMLValidator.validate(run.stdout), true);
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(
      run.stdout,
    ) as {
      testsuites: {
        tests: string;
        failures: string;
        testsuite: {
          name: string;
          tests: string;
          failures: string;
          testcase: { name: string; classname: string; failure?: { message: string; type: string }; 'system-out'?: string }[];
        }[];
      };
    };
    const suite = xml.testsuites.testsuite[0]!;
    assert.equal(suite.name, 'pods.yaml');
    const rules = new Engine(RULES, { config: {}, cluster: unknownCluster() }).enabledRuleIds.length;
    assert.equal(suite.testcase.length, 2 * rules, 'two pods × every rule that runs');
    assert.equal(Number(suite.tests), suite.testcase.length);
    const failed = suite.testcase.filter((testCase) => testCase.failure !== undefined);
    assert.deepEqual(
      failed.map((testCase) => `${testCase.name} ${testCase.failure!.type}`),
      ['Pod/p: readiness-termination-grace-period error'],
    );
    assert.equal(Number(suite.failures), 1);
    assert.equal(Number(xml.testsuites.failures), 1);
    // The warning is below --fail-on error: its test case passes, and says so in its output.
    const warned = suite.testcase.find((testCase) => testCase.name === 'Pod/p: timeout-not-below-period')!;
    assert.equal(warned.failure, undefined);
    assert.match(warned['system-out']!, /^pods\.yaml:\d+:\d+ warning timeout-not-below-period: /);
  });

  it('puts an input error in a test case in error', () => {
    const { directory } = file(manifest);
    writeFileSync(join(directory, 'broken.yaml'), 'kind: Pod\nmetadata: {name: x\n');
    const run = runCli(['broken.yaml', '--format', 'junit'], { cwd: directory });
    assert.equal(run.code, 2);
    assert.match(run.stdout, /<testcase classname="broken\.yaml" name="input">\s*<error message="invalid YAML: [^"]+" type="input">/);
  });
});

describe('--format gitlab', () => {
  // GitLab's Code Quality report (docs.gitlab.com, "Code Quality report format"): an array of issues
  // with these required fields; no package publishes it as a schema.
  const schema = {
    type: 'array',
    items: {
      type: 'object',
      required: ['description', 'check_name', 'fingerprint', 'severity', 'location'],
      properties: {
        description: { type: 'string', minLength: 1 },
        check_name: { type: 'string', minLength: 1 },
        fingerprint: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        severity: { enum: ['info', 'minor', 'major', 'critical', 'blocker'] },
        location: {
          type: 'object',
          required: ['path', 'lines'],
          properties: {
            path: { type: 'string', minLength: 1 },
            lines: { type: 'object', required: ['begin'], properties: { begin: { type: 'integer', minimum: 1 } } },
          },
        },
      },
    },
  };

  it('is a Code Quality report, with fingerprints that stay when a finding moves to another line', () => {
    const { directory, path } = file(manifest);
    const first = JSON.parse(runCli([path, '--format', 'gitlab'], { cwd: directory }).stdout) as {
      fingerprint: string;
      check_name: string;
      severity: string;
      location: { lines: { begin: number } };
    }[];
    const validate = new Ajv({ allErrors: true }).compile(schema);
    assert.ok(validate(first), JSON.stringify(validate.errors));
    assert.deepEqual(first.map((issue) => `${issue.check_name} ${issue.severity}`).sort(), [
      'probe-lint/readiness-termination-grace-period critical',
      'probe-lint/timeout-not-below-period major',
    ]);
    writeFileSync(join(directory, path), `# a comment moves every line down\n${manifest}`);
    const moved = JSON.parse(runCli([path, '--format', 'gitlab'], { cwd: directory }).stdout) as typeof first;
    assert.deepEqual(moved.map((issue) => issue.fingerprint).sort(), first.map((issue) => issue.fingerprint).sort());
    assert.deepEqual(moved.map((issue) => issue.location.lines.begin).sort(), first.map((issue) => issue.location.lines.begin + 1).sort());
  });
});

describe('fingerprints', () => {
  it('are unique per finding in GitLab, SARIF and JSON, also for the same object written twice in one file', () => {
    const twice = `${manifest}---\n${manifest}`;
    const { directory, path } = file(twice);
    const json = JSON.parse(runCli([path, '--format', 'json', '--fail-on', 'never'], { cwd: directory }).stdout) as { findings: { fingerprint: string }[] };
    const gitlab = JSON.parse(runCli([path, '--format', 'gitlab'], { cwd: directory }).stdout) as { fingerprint: string }[];
    const sarif = JSON.parse(runCli([path, '--format', 'sarif'], { cwd: directory }).stdout) as {
      runs: { results: { partialFingerprints: Record<string, string> }[] }[];
    };
    assert.equal(json.findings.length, 4, 'each object twice: two findings each');
    for (const prints of [
      json.findings.map((finding) => finding.fingerprint),
      gitlab.map((issue) => issue.fingerprint),
      sarif.runs[0]!.results.map((result) => result.partialFingerprints['probeLintFinding/v1']!),
    ])
      assert.equal(new Set(prints).size, 4, prints.join(' '));
    assert.deepEqual(
      gitlab.map((issue) => issue.fingerprint),
      json.findings.map((finding) => finding.fingerprint),
      'the same finding has the same fingerprint in every format',
    );
  });
});

describe('--format markdown', () => {
  it('counts by rule and severity, lists findings by file, links to lines on GitHub, and cannot be broken by a name', () => {
    const { directory, path } = file(manifest.replace('name: p', 'name: "p|<b>x</b>"'));
    const env = { GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'acme/shop', GITHUB_SHA: 'a'.repeat(40) };
    const run = runCli([path, '--format', 'markdown'], { cwd: directory, env });
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^\| `readiness-termination-grace-period` \| 1 \| 0 \| 0 \|$/m);
    assert.match(run.stdout, /^\| `timeout-not-below-period` \| 0 \| 1 \| 0 \|$/m);
    assert.match(run.stdout, /^### `pods\.yaml`$/m);
    assert.match(run.stdout, new RegExp(`\\[\`pods\\.yaml:\\d+:\\d+\`\\]\\(https://github\\.com/acme/shop/blob/${'a'.repeat(40)}/pods\\.yaml#L\\d+\\)`));
    // Every table row has exactly its four cells: the name's pipe is escaped, its HTML is not HTML.
    for (const row of run.stdout.split('\n').filter((line) => line.startsWith('| `pods.yaml') || line.startsWith('| [`pods.yaml'))) {
      assert.equal(row.split(/(?<!\\)\|/).length - 2, 4, row);
    }
    // The name's HTML is text: in code spans as written, elsewhere escaped; rendered, it is no element.
    assert.doesNotMatch(new Marked({ gfm: true }).parse(run.stdout) as string, /<b>/);
    assert.match(new Marked({ gfm: true }).parse(run.stdout) as string, /&lt;b&gt;x&lt;\/b&gt;/);
  });

  it("shows, folded under each timing finding's container, that container's timeline: a table and a Mermaid chart", () => {
    const run = runCli(['examples/shop.yaml', '--format', 'markdown'], { cwd: ROOT });
    const folded = [...run.stdout.matchAll(/<details><summary>When the kubelet acts on ([^<]+)<\/summary>([\s\S]*?)<\/details>/g)];
    // storefront: liveness-mirrors-readiness and timeout-not-below-period (once); cache: liveness-without-startup-probe.
    assert.deepEqual(
      folded.map((match) => match[1]),
      ['Deployment/shop/storefront, container storefront', 'Deployment/shop/storefront, container cache'],
    );
    const timeline = JSON.parse(runCli(['timeline', 'examples/shop.yaml', '--container', 'storefront', '--format', 'json'], { cwd: ROOT }).stdout)
      .containers[0];
    for (const window of timeline.windows) assert.match(folded[0]![2]!, new RegExp(`\\| ${window.fromSeconds}-${window.toSeconds} s \\|`));
    assert.match(folded[0]![2]!, /```mermaid\ngantt\n/);
  });
});
