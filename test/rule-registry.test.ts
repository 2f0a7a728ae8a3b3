// The rule list, the rule folders, the docs and the config schema must agree.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { RULES } from '../rules/index.js';
import { CONFIG_SCHEMA } from '../src/engine/config.js';
import { ROOT } from './helpers.js';

describe('rule registry', () => {
  const folders = readdirSync(join(ROOT, 'rules'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

  it('registers every rule folder exactly once, under the folder name', () => {
    assert.deepEqual(RULES.map((rule) => rule.meta.id).sort(), folders);
  });

  it('gives every rule a README with why, failing and passing examples and how to fix', () => {
    for (const id of folders) {
      const docs = readFileSync(join(ROOT, 'rules', id, 'README.md'), 'utf8');
      assert.ok(docs.startsWith(`# ${id}\n`), `${id}: README must start with "# ${id}"`);
      for (const section of ['## Why', '## Failing', '## Passing', '## How to fix']) assert.ok(docs.includes(section), `${id}: README lacks "${section}"`);
    }
  });

  it('states each rule\'s severity and fixability in its README as in its metadata', () => {
    for (const { meta } of RULES) {
      const docs = readFileSync(join(ROOT, 'rules', meta.id, 'README.md'), 'utf8');
      assert.ok(docs.includes(`**Fixable:** ${meta.fixable ? 'yes' : 'no'}`), `${meta.id}: fixable`);
      assert.ok(docs.includes(`**Severity:** ${meta.severity}`), `${meta.id}: severity`);
    }
  });

  it('knows every rule, and every rule option, in the config schema', () => {
    const schemaRules = (CONFIG_SCHEMA as any).properties.rules.properties;
    assert.deepEqual(Object.keys(schemaRules).sort(), folders);
    for (const { meta } of RULES) {
      const options = schemaRules[meta.id].allOf?.[1]?.properties?.options?.properties ?? {};
      assert.deepEqual(Object.keys(options).sort(), Object.keys(meta.defaultOptions).sort(), `${meta.id}: options`);
    }
    assert.ok(existsSync(join(ROOT, 'schema/config.schema.json')));
  });
});
