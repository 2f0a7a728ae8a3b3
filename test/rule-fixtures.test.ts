// Runs every rules/<id>/fixtures/{pass,fail}/*.yaml without listing them anywhere.
// A fail fixture marks each line that must carry a finding with `# expect: <rule>/<messageId> <severity> ["message part"]`;
// the rule must report exactly those lines, at the column of the key, with that message and severity, and nothing else.
// `# test-config: {json}` on any line sets the config (e.g. cluster density), read by the real config parser.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { RULES } from '../rules/index.js';
import { parseConfig } from '../src/engine/config-file.js';
import { lintText, ROOT } from './helpers.js';

interface Expectation {
  rule: string;
  messageId: string;
  line: number;
  column: number;
  severity: string;
  messagePart?: string;
}

const MARKER = /# expect: ([a-z-]+)\/([A-Za-z]+) (error|warning|info)(?: "((?:[^"\\]|\\.)*)")?\s*$/;

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
        const { located, failures, source } = lintText(text, { config: configOf(text, file), file });
        assert.equal(source.error, undefined, 'the fixture parses');
        assert.deepEqual(failures, []);
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

    for (const file of fixtures(id, 'pass')) {
      it(`reports nothing in pass/${basename(file)}`, () => {
        const text = readFileSync(file, 'utf8');
        const { located, failures, source, resources } = lintText(text, { config: configOf(text, file), file });
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
