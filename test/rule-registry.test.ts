// The rule list, the rule folders, the docs, the generated files and the rule contract must agree.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { RULES } from '../rules/index.js';
import { generatedFiles } from '../scripts/generate.js';
import { newRuleFiles } from '../scripts/new-rule.js';
import { configSchema } from '../src/engine/config-file.js';
import { celMessagesOf } from '../src/engine/rule.js';
import { ROOT } from './helpers.js';

describe('rule registry', () => {
  const folders = readdirSync(join(ROOT, 'rules'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

  it('registers every rule folder exactly once, under the folder name', () => {
    assert.deepEqual(RULES.map((rule) => rule.meta.id).sort(), folders);
    const registry = readFileSync(join(ROOT, 'rules/registry.ts'), 'utf8');
    for (const id of folders) assert.equal(registry.split(`'./${id}/index.js'`).length - 1, 1, `${id}: one line in rules/registry.ts`);
  });

  it('gives every rule a README that stands alone: why, failing and passing examples, how to fix', () => {
    for (const id of folders) {
      const docs = readFileSync(join(ROOT, 'rules', id, 'README.md'), 'utf8');
      assert.ok(docs.startsWith(`# ${id}\n`), `${id}: README must start with "# ${id}"`);
      for (const section of ['## Why', '## Failing', '## Passing', '## How to fix']) assert.ok(docs.includes(section), `${id}: README lacks "${section}"`);
      assert.doesNotMatch(docs, /reference §|§\d/, `${id}: the README points at a reference that is not shipped`);
    }
  });

  it('gives every rule a summary and a remediation that say, in a line each, what is wrong and what to change', () => {
    for (const { meta } of RULES) {
      // Shown by `probe-lint rules`, in SARIF's rule help and in the editor's hover.
      assert.match(meta.summary, /^[a-z].{20,}[^.]$/, `${meta.id}: summary is a lower-case phrase`);
      assert.match(meta.remediation, /^[A-Z].{20,}\.$/, `${meta.id}: remediation is a sentence`);
      assert.doesNotMatch(meta.summary + meta.remediation, /\n/, `${meta.id}: one line each`);
    }
  });

  it('marks as timing rules exactly those whose messages quote the timing model (the Markdown report says where their times come from)', () => {
    for (const { meta } of RULES) {
      const quotes = Object.values(meta.messages).some((message) => /Window\}/.test((message as { long: string }).long));
      assert.equal(meta.timing === true, quotes, meta.id);
    }
  });

  it('has each message of a rule with CEL written by its CEL or named unexpressed (and why), never both', () => {
    for (const rule of RULES) {
      const { meta } = rule;
      const policy = meta.policy;
      if ('notExpressible' in policy) continue;
      const written = new Set<string>();
      const messages = celMessagesOf(rule);
      const recording = (id: string, data?: Readonly<Record<string, string>>) => (written.add(id), messages(id, data));
      policy.problems(recording);
      policy.infoProblems?.(recording);
      const unexpressed = policy.unexpressed ?? [];
      assert.deepEqual([...written, ...unexpressed].sort(), Object.keys(meta.messages).sort(), `${meta.id}: each message written or unexpressed, once`);
      if (unexpressed.length > 0) assert.ok((policy.limits ?? '').length > 40, `${meta.id}: say why some messages have no CEL`);
    }
  });

  it("states each rule's severity and fix kind in its README as in its metadata", () => {
    for (const { meta } of RULES) {
      const docs = readFileSync(join(ROOT, 'rules', meta.id, 'README.md'), 'utf8');
      assert.ok(docs.includes(`**Severity:** ${meta.severity}`), `${meta.id}: severity`);
      assert.ok(docs.includes(`**Fix:** ${meta.fix ?? 'none'}`), `${meta.id}: fix kind`);
    }
  });

  it('gives every message a short text within the admission warning length, and braces only as placeholders', () => {
    for (const { meta } of RULES) {
      for (const [id, text] of Object.entries(meta.messages)) {
        // With placeholders at a typical width (numbers, short names), the short text fits the 120 the Kubernetes docs ask for.
        const typical = text.short.replace(/\{\w+\}/g, 'xxxx');
        assert.ok(typical.length <= 120, `${meta.id}/${id}: short text is ${typical.length} characters`);
        assert.ok(!text.short.includes('\n') && !text.long.includes('\n'), `${meta.id}/${id}: one line`);
        // A brace that is not a whole {name} is a typo the message would print as it is ("{ field}", "{field").
        for (const template of [text.short, text.long])
          assert.doesNotMatch(template.replace(/\{\w+\}/g, ''), /[{}]/, `${meta.id}/${id}: a brace outside a {placeholder}`);
        assert.ok(text.long.length > text.short.length, `${meta.id}/${id}: the long text says more than the short one`);
      }
    }
  });

  it('has the committed config schema, README rule, fix and option tables exactly as generated from the rules', async () => {
    for (const file of await generatedFiles(ROOT)) {
      assert.equal(readFileSync(join(ROOT, file.path), 'utf8'), file.text, `${file.path} is stale: run npm run generate`);
    }
    const schemaRules = (configSchema() as { properties: { rules: { properties: Record<string, unknown> } } }).properties.rules.properties;
    assert.deepEqual(Object.keys(schemaRules).sort(), folders);
  });
});

describe('npm run new-rule', () => {
  it('writes a rule folder to fill in and its line in the registry, in order, and refuses a bad or taken id', () => {
    const registry = readFileSync(join(ROOT, 'rules/registry.ts'), 'utf8');
    const files = newRuleFiles('probe-period-too-long', registry);
    assert.deepEqual(Object.keys(files).sort(), [
      'rules/probe-period-too-long/README.md',
      'rules/probe-period-too-long/fixtures/fail/basic.yaml',
      'rules/probe-period-too-long/fixtures/pass/basic.yaml',
      'rules/probe-period-too-long/index.ts',
      'rules/registry.ts',
    ]);
    const exports = files['rules/registry.ts']!.split('\n').filter((line) => line.startsWith('export '));
    assert.ok(exports.includes("export { default as probePeriodTooLong } from './probe-period-too-long/index.js';"));
    assert.deepEqual(exports, [...exports].sort(), 'the registry stays sorted');
    assert.equal(exports.length, registry.split('\n').filter((line) => line.startsWith('export ')).length + 1);
    assert.match(files['rules/probe-period-too-long/README.md']!, /^## Failing$[\s\S]*^## Passing$[\s\S]*^## How to fix$/m);
    assert.match(files['rules/probe-period-too-long/fixtures/fail/basic.yaml']!, /# expect: probe-period-too-long\/found warning/);
    assert.throws(() => newRuleFiles('Bad_Id', registry), /not a rule id/);
    assert.throws(() => newRuleFiles('timeout-not-below-period', registry), /in rules\/registry\.ts already/);
  });
});
