// Runs every rules/<id>/fixtures/{pass,fail}/*.yaml without listing them anywhere.
// A fail fixture marks each line that must carry a finding with `# expect: <rule>/<messageId> <severity> ["message part"]`;
// the rule must report exactly those lines, at the column of the key, with that message and severity, and nothing else.
// `# test-config: {json}` on any line sets the config (e.g. cluster density), read by the real config parser.
// Every finding of a fail fixture — every rule's, with severity, place, short and long message and
// fix — is pinned in `<fixture>.snap` beside it, reviewed like code; UPDATE_SNAPSHOTS=1 rewrites them.
// Each message id is marked in some fail fixture and each option set by some fixture's test-config,
// and the rule README's Failing and Passing examples run as fixtures too.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { RULES } from '../rules/index.js';
import { parseConfig } from '../src/engine/config-file.js';
import { evidenceOf } from './test-evidence.js';
import type { LocatedFinding } from '../src/report/located.js';
import { structuredPatch } from 'diff';
import { changeEdits } from '../src/fix/fix-source.js';
import { applyEdits } from '../src/fix/text-edits.js';
import { lintText, ROOT } from './helpers.js';

interface Expectation {
  rule: string;
  messageId: string;
  line: number;
  column: number;
  severity: string;
  messagePart?: string;
}

const MARKER = /# expect: ([a-z-]+)\/([A-Za-z0-9]+) (error|warning|info)(?: "((?:[^"\\]|\\.)*)")?\s*$/;

function expectationsOf(text: string): Expectation[] {
  const expectations: Expectation[] = [];
  text.split('\n').forEach((line, index) => {
    if (!line.includes('# expect:')) return;
    const match = MARKER.exec(line);
    if (!match) throw new Error(`line ${index + 1}: a marker is written "# expect: <rule>/<messageId> <severity> ["message part"]": ${line.trim()}`);
    const keyColumn = /^(\s*(?:- )?)/.exec(line)![1]!.length + 1;
    expectations.push({
      rule: match[1]!,
      messageId: match[2]!,
      line: index + 1,
      column: keyColumn,
      severity: match[3]!,
      ...(match[4] ? { messagePart: match[4].replace(/\\"/g, '"') } : {}),
    });
  });
  return expectations;
}

function configOf(text: string, file: string) {
  const match = /# test-config: (\{.*\})/.exec(text);
  return match ? parseConfig(match[1]!, `${file} (test-config)`) : {};
}

function fixtures(ruleId: string, kind: 'pass' | 'fail'): string[] {
  const directory = join(ROOT, 'rules', ruleId, 'fixtures', kind);
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((name) => /\.(ya?ml|json)$/.test(name))
    .map((name) => join(directory, name));
}

for (const rule of RULES) {
  const id = rule.meta.id;
  describe(`rule ${id}`, () => {
    it('has at least one failing and one passing fixture', () => {
      assert.ok(fixtures(id, 'fail').length > 0, `rules/${id}/fixtures/fail is empty`);
      assert.ok(fixtures(id, 'pass').length > 0, `rules/${id}/fixtures/pass is empty`);
    });

    for (const file of fixtures(id, 'fail')) {
      it(`reports exactly the marked lines in fail/${basename(file)}`, () => {
        const text = readFileSync(file, 'utf8');
        const expected = expectationsOf(text);
        assert.ok(
          expected.some((expectation) => expectation.rule === id),
          `fail fixture ${file} has no "# expect: ${id}" marker`,
        );
        const { located, failures, source } = lintText(text, { config: configOf(text, file), file, evidence: evidenceOf(text) });
        assert.equal(source.error, undefined, 'the fixture parses');
        assert.deepEqual(failures, []);
        matchesSnapshot(file, text, located);
        for (const ruleId of new Set(expected.map((expectation) => expectation.rule))) {
          const actual = located.filter((finding) => finding.rule === ruleId);
          const wanted = expected.filter((expectation) => expectation.rule === ruleId);
          assert.deepEqual(
            actual.map((finding) => `${finding.line}:${finding.column}`).sort(),
            wanted.map((expectation) => `${expectation.line}:${expectation.column}`).sort(),
            `${ruleId} findings at the wrong places:\n${actual.map((finding) => `${finding.line}:${finding.column} ${finding.message}`).join('\n')}`,
          );
          for (const expectation of wanted) {
            const finding = actual.find((candidate) => candidate.line === expectation.line)!;
            assert.equal(finding.messageId, expectation.messageId, finding.message);
            assert.equal(finding.severity, expectation.severity, finding.message);
            if (expectation.messagePart)
              assert.ok(finding.message.includes(expectation.messagePart), `message lacks "${expectation.messagePart}": ${finding.message}`);
          }
        }
      });
    }

    it('marks every message id in a fail fixture, and sets every option in a fixture', () => {
      const failing = fixtures(id, 'fail').map((file) => readFileSync(file, 'utf8'));
      const marked = new Set(
        failing.flatMap((text) =>
          expectationsOf(text)
            .filter((expectation) => expectation.rule === id)
            .map((expectation) => expectation.messageId),
        ),
      );
      assert.deepEqual(
        Object.keys(rule.meta.messages).filter((messageId) => !marked.has(messageId)),
        [],
        'message ids no fixture expects',
      );
      const configs = [...fixtures(id, 'fail'), ...fixtures(id, 'pass')].map((file) => configOf(readFileSync(file, 'utf8'), file));
      const set = new Set(configs.flatMap((config) => Object.keys((config.rules?.[id] as { options?: object } | undefined)?.options ?? {})));
      assert.deepEqual(
        Object.keys(rule.meta.options?.schema ?? {}).filter((option) => !set.has(option)),
        [],
        'options no fixture sets',
      );
    });

    const examples = readmeExamples(id);
    it("runs its README's Failing and Passing examples: the first reports it, the second does not", () => {
      assert.ok(
        examples.failing.length > 0 && examples.passing.length > 0,
        `rules/${id}/README.md needs a yaml block under "## Failing" and under "## Passing"`,
      );
      for (const example of examples.failing) {
        const { located, source } = lintText(example.manifest, { config: example.config, file: `README.md (Failing)`, evidence: evidenceOf(example.manifest) });
        assert.equal(source.error, undefined, `the Failing example parses:\n${example.manifest}`);
        assert.ok(
          located.some((finding) => finding.rule === id),
          `the Failing example reports no ${id}:\n${example.manifest}`,
        );
      }
      for (const example of examples.passing) {
        const { located, source } = lintText(example.manifest, { config: example.config, file: `README.md (Passing)`, evidence: evidenceOf(example.manifest) });
        assert.equal(source.error, undefined, `the Passing example parses:\n${example.manifest}`);
        assert.deepEqual(
          located.filter((finding) => finding.rule === id).map((finding) => finding.message),
          [],
          `the Passing example:\n${example.manifest}`,
        );
      }
    });

    for (const file of fixtures(id, 'pass')) {
      it(`reports nothing in pass/${basename(file)}`, () => {
        const text = readFileSync(file, 'utf8');
        const { located, failures, source, resources } = lintText(text, { config: configOf(text, file), file, evidence: evidenceOf(text) });
        assert.equal(source.error, undefined, 'the fixture parses');
        assert.ok(resources > 0, 'the fixture holds Kubernetes objects');
        assert.deepEqual(failures, []);
        assert.deepEqual(
          located.filter((finding) => finding.rule === id).map((finding) => `${finding.line}:${finding.column} ${finding.message}`),
          [],
        );
      });
    }
  });
}

/**
 * The whole of what a fixture reports, one finding per block, in place order, as Ruff shows its
 * diagnostics: the fixture's line with a caret under the finding's column, the messages, and the fix
 * as the before/after lines --fix would change.
 */
function snapshotOf(fixture: string, text: string, located: readonly LocatedFinding[]): string {
  const lines = text.split('\n');
  return (
    [...located]
      .sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0) || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0))
      .map((finding) => {
        const gutter = ' '.repeat(String(finding.line ?? '').length);
        const place =
          finding.line === undefined
            ? []
            : [`${gutter} |`, `${finding.line} | ${lines[finding.line - 1] ?? ''}`, `${gutter} | ${' '.repeat((finding.column ?? 1) - 1)}^`];
        return [
          `${finding.line}:${finding.column} ${finding.severity} ${finding.rule}/${finding.messageId}${finding.container ? ` container=${finding.container}` : ''}`,
          ...place,
          `  short: ${finding.short}`,
          `  long: ${finding.message}`,
          ...(finding.fix ? [`  ${finding.fixKind ?? 'fix'}: ${JSON.stringify(finding.fix)}`, ...fixDiff(fixture, text, finding)] : []),
        ].join('\n');
      })
      .join('\n\n') + '\n'
  );
}

/** The lines a finding's fix changes, as a diff of the fixture (what --fix would write for it alone). */
function fixDiff(fixture: string, text: string, finding: LocatedFinding): string[] {
  const change = changeEdits(fixture, text, [{ documentIndex: finding.resource.origin.documentIndex ?? 0, operations: finding.fix!, rule: finding.rule }]);
  if ('problem' in change) return [`  (${change.problem})`];
  const patch = structuredPatch('before', 'after', text, applyEdits(text, change.edits), '', '', { context: 0 });
  return patch.hunks.flatMap((hunk) => [
    `  @@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    ...hunk.lines.map((line) => `  ${line}`),
  ]);
}

function matchesSnapshot(fixture: string, text: string, located: readonly LocatedFinding[]): void {
  const file = fixture.replace(/\.(ya?ml|json)$/, '.snap');
  const actual = snapshotOf(fixture, text, located);
  if (process.env.UPDATE_SNAPSHOTS === '1' || !existsSync(file)) {
    if (process.env.CI === 'true' && !existsSync(file)) assert.fail(`${file} is missing: run UPDATE_SNAPSHOTS=1 npm test and review it`);
    writeFileSync(file, actual);
    return;
  }
  assert.equal(actual, readFileSync(file, 'utf8'), `${file} differs: review the change, and run UPDATE_SNAPSHOTS=1 npm test to accept it`);
}

interface ReadmeExample {
  manifest: string;
  config: ReturnType<typeof configOf>;
}

/**
 * The yaml blocks under a rule README's "## Failing" and "## Passing", as manifests: a README shows
 * the part that matters — container fields, pod spec fields (`containers:`), or `metadata:` — and
 * it is placed in a Pod as written (duplicate keys and comments kept). `# probe-lint --pods-per-node N`
 * in a block sets the cluster's density.
 */
function readmeExamples(ruleId: string): { failing: ReadmeExample[]; passing: ReadmeExample[] } {
  const readme = readFileSync(join(ROOT, 'rules', ruleId, 'README.md'), 'utf8');
  const section = (heading: string) => {
    const start = readme.indexOf(`\n## ${heading}\n`);
    if (start === -1) return [];
    const end = readme.indexOf('\n## ', start + heading.length + 5);
    const text = readme.slice(start, end === -1 ? undefined : end);
    return [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => exampleManifest(match[1]!));
  };
  return { failing: section('Failing'), passing: section('Passing') };
}

function exampleManifest(block: string): ReadmeExample {
  const podSpecKeys = /^(containers|initContainers|ephemeralContainers|restartPolicy|terminationGracePeriodSeconds|hostNetwork|volumes)\s*:/m;
  const pods = /# probe-lint --pods-per-node (\d+)/.exec(block);
  const config = pods ? { cluster: { podsPerNode: Number(pods[1]) } } : {};
  const indent = (text: string, spaces: number) => text.replace(/^(?=.)/gm, ' '.repeat(spaces));
  if (/^apiVersion\s*:/m.test(block)) return { manifest: block, config };
  const header = 'apiVersion: v1\nkind: Pod\n';
  const container = '  containers:\n    - name: app\n      image: example/app:1\n';
  if (/^metadata\s*:/m.test(block)) return { manifest: `${header}${block}spec:\n${container}`, config };
  if (podSpecKeys.test(block)) {
    const withContainers = /^containers\s*:/m.test(block) ? '' : container;
    return { manifest: `${header}metadata: {name: example}\nspec:\n${indent(block, 2)}${withContainers}`, config };
  }
  return { manifest: `${header}metadata: {name: example}\nspec:\n${container}${indent(block, 6)}`, config };
}
