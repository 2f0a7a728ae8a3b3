// --fix: the same RFC 6902 operations the webhook sends, applied to YAML text with its layout kept.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { RULES } from '../rules/index.js';
import { unknownCluster } from '../src/engine/cluster-facts.js';
import { Engine } from '../src/engine/engine.js';
import type { FixKind } from '../src/engine/rule.js';
import { fixSourceText } from '../src/fix/fix-source.js';
import { LintSession } from '../src/lint/index.js';
import { lintText, podYaml, ROOT, runCli } from './helpers.js';
import { evidenceOf } from './test-evidence.js';
import type { RuntimeEvidence } from '../src/engine/runtime-evidence.js';

/** A file's text fixed as --fix fixes it, read by `session` after each pass. */
const fixWith = (session: LintSession, path: string, text: string, kinds: readonly FixKind[]) =>
  fixSourceText(path, text, session.findingsOfSource(path), kinds);

/** An engine with only one rule enabled, so a fixture pair shows exactly that rule's fix. */
function sessionWithOnly(id: string, evidence?: RuntimeEvidence): LintSession {
  const rules = Object.fromEntries(RULES.map((rule) => [rule.meta.id, rule.meta.id === id ? ('warning' as const) : ('off' as const)]));
  return new LintSession(new Engine(RULES, { config: { rules }, cluster: unknownCluster(), ...(evidence ? { evidence } : {}) }));
}

const allRules = new LintSession(new Engine(RULES, { config: {}, cluster: unknownCluster() }));
const BOTH_KINDS = ['fix', 'suggestion'] as const;

function fixPairs(id: string): [string, string][] {
  const directory = join(ROOT, 'rules', id, 'fixtures', 'fix');
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((name) => name.endsWith('.yaml') && !name.endsWith('.fixed.yaml'))
    .map((name) => [join(directory, name), join(directory, name.replace(/\.yaml$/, '.fixed.yaml'))]);
}

describe('fix fixtures', () => {
  for (const rule of RULES) {
    const id = rule.meta.id;
    it(`${id} ${rule.meta.fix ? 'has' : 'has no'} before/after fix fixtures`, () => {
      assert.equal(fixPairs(id).length > 0, rule.meta.fix !== undefined);
    });
    for (const [beforeFile, afterFile] of fixPairs(id)) {
      it(`${id}: fixes ${basename(beforeFile)} into ${basename(afterFile)} byte for byte, idempotently`, () => {
        const before = readFileSync(beforeFile, 'utf8');
        // A runtime rule's fixture says what audit measured (its fix is a suggestion in audit's findings).
        const evidence = evidenceOf(before);
        const session = sessionWithOnly(id, evidence);
        assert.ok(
          lintText(before, { evidence }).findings.some((finding) => finding.rule === id),
          'the before fixture must have a finding to fix',
        );
        const outcome = fixWith(session, beforeFile, before, [rule.meta.fix!]);
        assert.equal(outcome.problem, undefined);
        assert.equal(outcome.text, readFileSync(afterFile, 'utf8'));
        assert.ok(outcome.fixed.every((fixed) => fixed === id));
        const again = fixWith(session, afterFile, outcome.text, [rule.meta.fix!]);
        assert.equal(again.changed, false, 'fixing the fixed file changes nothing');
        assert.deepEqual(
          lintText(outcome.text, { evidence }).findings.filter((finding) => finding.rule === id),
          [],
        );
      });
    }
  }
});

describe('layout preservation', () => {
  const file = join(ROOT, 'test/fixtures/fix/commented.yaml');
  const before = readFileSync(file, 'utf8');

  it('changes only the fixed values in a file full of comments and odd formatting', () => {
    const outcome = fixWith(allRules, file, before, BOTH_KINDS);
    assert.equal(outcome.problem, undefined);
    assert.deepEqual(outcome.fixed.sort(), ['readiness-termination-grace-period', 'timeout-not-below-period']);
    const expected = before
      .replace(
        'httpGet: {path: /livez, port: 8080}\n                      timeoutSeconds: 10     # TODO: lower',
        'httpGet: {path: /livez, port: 8080}\n                      timeoutSeconds: 9     # TODO: lower',
      )
      .replace('                      terminationGracePeriodSeconds: 5\n', '');
    assert.notEqual(expected, before);
    assert.equal(outcome.text, expected);
  });

  it('is idempotent and leaves none of the fixed findings', () => {
    const once = fixWith(allRules, file, before, BOTH_KINDS).text;
    assert.equal(fixWith(allRules, file, once, BOTH_KINDS).changed, false);
    const remaining = lintText(once).findings.map((finding) => finding.rule);
    assert.ok(!remaining.includes('timeout-not-below-period') && !remaining.includes('readiness-termination-grace-period'), remaining.join());
  });

  it('re-renders only the flow mapping it must change', () => {
    const text = podYaml('livenessProbe: {tcpSocket: {port: 80}, timeoutSeconds: 10}  # flow\nreadinessProbe:\n  tcpSocket:\n    port: 81');
    const outcome = fixWith(allRules, 'flow.yaml', text, BOTH_KINDS);
    assert.equal(outcome.text, text.replace('{tcpSocket: {port: 80}, timeoutSeconds: 10}', '{ tcpSocket: { port: 80 }, timeoutSeconds: 9 }'));
  });

  it('fixes JSON as JSON, keeping its indentation', () => {
    const json =
      JSON.stringify(
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'p' },
          spec: { containers: [{ name: 'c', image: 'i', livenessProbe: { tcpSocket: { port: 80 }, successThreshold: 3 } }] },
        },
        null,
        4,
      ) + '\n';
    const outcome = fixWith(allRules, 'pod.json', json, ['fix']);
    assert.equal(outcome.text, json.replace('"successThreshold": 3', '"successThreshold": 1'));
  });
});

describe('probe-lint --fix', () => {
  let work: string;
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'probe-lint-fix-'));
  });

  it('writes fixed files, leaves clean ones untouched, and exits on what is left', () => {
    const fixable = join(work, 'fixable.yaml');
    const clean = join(work, 'clean.yaml');
    copyFileSync(join(ROOT, 'test/fixtures/fix/commented.yaml'), fixable);
    writeFileSync(clean, podYaml('livenessProbe:\n  tcpSocket:\n    port: 80\nreadinessProbe:\n  tcpSocket:\n    port: 81'));
    const cleanBefore = statSync(clean).mtimeMs;
    const run = runCli(['--fix', '--fix-type', 'fix,suggestion', fixable, clean, '--format', 'json']);
    assert.match(run.stderr, /probe-lint: fixed 2 problems in 1 file/);
    assert.equal(
      readFileSync(fixable, 'utf8'),
      fixWith(allRules, fixable, readFileSync(join(ROOT, 'test/fixtures/fix/commented.yaml'), 'utf8'), BOTH_KINDS).text,
    );
    assert.equal(statSync(clean).mtimeMs, cleanBefore);
    // What is left: missing-liveness infos only, so exit 0 under the default --fail-on warning.
    const report = JSON.parse(run.stderr.slice(run.stderr.indexOf('{')));
    assert.deepEqual(
      report.findings.filter((finding: { severity: string }) => finding.severity !== 'info'),
      [],
    );
    assert.equal(run.code, 0);
  });

  it('applies only fixes by default, and suggestions only when asked', () => {
    const text = podYaml(
      'livenessProbe:\n  tcpSocket:\n    port: 80\n  timeoutSeconds: 10\n  successThreshold: 3\nreadinessProbe:\n  tcpSocket:\n    port: 81',
    );
    const fixesOnly = runCli(['--fix', '-'], { input: text });
    assert.equal(fixesOnly.stdout, text.replace('successThreshold: 3', 'successThreshold: 1'));
    assert.match(fixesOnly.stderr, /fixed 1 problem in 1 file/);
    assert.match(fixesOnly.stderr, /timeout-not-below-period/, 'the suggestion is still reported');
    const suggestionsOnly = runCli(['--fix', '--fix-type', 'suggestion', '-'], { input: text });
    assert.equal(suggestionsOnly.stdout, text.replace('timeoutSeconds: 10', 'timeoutSeconds: 9'));
    const both = runCli(['--fix', '--fix-type', 'fix,suggestion', '-'], { input: text });
    assert.equal(both.stdout, text.replace('timeoutSeconds: 10', 'timeoutSeconds: 9').replace('successThreshold: 3', 'successThreshold: 1'));
  });

  it('exits 1 when an unfixable warning remains', () => {
    const file = join(work, 'host.yaml');
    writeFileSync(
      file,
      podYaml('livenessProbe:\n  httpGet:\n    host: 127.0.0.1\n    port: 80\n  successThreshold: 2\nreadinessProbe:\n  tcpSocket:\n    port: 81'),
    );
    const run = runCli(['--fix', file]);
    assert.equal(run.code, 1);
    assert.match(readFileSync(file, 'utf8'), /successThreshold: 1/);
    assert.match(run.stderr, /http-probe-host/);
  });

  it('--fix-dry-run prints a unified diff and writes nothing', () => {
    const file = join(work, 'dry.yaml');
    const text = podYaml('livenessProbe:\n  tcpSocket:\n    port: 80\n  timeoutSeconds: 10\nreadinessProbe:\n  tcpSocket:\n    port: 81');
    writeFileSync(file, text);
    const run = runCli(['--fix-dry-run', '--fix-type', 'suggestion', file]);
    assert.equal(readFileSync(file, 'utf8'), text);
    assert.equal(run.code, 0);
    assert.match(
      run.stdout,
      new RegExp(
        `^Index: ${file.replace(/[.]/g, '\\.')}\\n={67}\\n--- ${file.replace(/[.]/g, '\\.')}\\n\\+\\+\\+ ${file.replace(/[.]/g, '\\.')}\\n@@ -10,7 \\+10,7 @@\\n`,
      ),
    );
    assert.match(run.stdout, /\n- {8}timeoutSeconds: 10\n\+ {8}timeoutSeconds: 9\n/);
    assert.match(run.stderr, /would fix 1 problem in 1 file/);
  });

  it('with "-" prints the fixed document on stdout and the report on stderr', () => {
    const text = podYaml('livenessProbe:\n  tcpSocket:\n    port: 80\n  successThreshold: 5\nreadinessProbe:\n  tcpSocket:\n    port: 81');
    const run = runCli(['--fix', '-'], { input: text });
    assert.equal(run.stdout, text.replace('successThreshold: 5', 'successThreshold: 1'));
    assert.match(run.stderr, /no problems in 1 file/);
    assert.equal(run.code, 0);
  });

  it('never writes a file it cannot parse, and exits 2', () => {
    const file = join(work, 'broken.yaml');
    const text = `${podYaml('livenessProbe:\n  tcpSocket:\n    port: 80\n  successThreshold: 5')}---\nkind: [\n`;
    writeFileSync(file, text);
    const run = runCli(['--fix', file]);
    assert.equal(run.code, 2);
    assert.equal(readFileSync(file, 'utf8'), text);
    assert.match(run.stderr, /broken\.yaml:\d+:\d+ {2}error {4}input\s+invalid YAML/);
  });

  it('refuses --fix together with --fix-dry-run', () => {
    assert.equal(runCli(['--fix', '--fix-dry-run', '-']).code, 2);
  });
});
