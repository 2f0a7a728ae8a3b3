// The small pieces many modules stand on: JSON Pointers, deep copies, globs, typo suggestions, rule
// settings and config discovery, rule docs. Each pinned where a slip would change what users see.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { clusterFactsFrom, densePodsPerNode, findConfigFile, ruleEnabled, severityOverride, type RuleSetting } from '../src/engine/config.js';
import { closestMatch, didYouMean, editDistance } from '../src/engine/did-you-mean.js';
import { matchesGlob } from '../src/engine/glob.js';
import { readRuleDocs, ruleDocsPath, ruleDocsUrl } from '../src/engine/rule-docs.js';
import { cloneJson } from '../src/model/json-value.js';
import { escapeSegment, joinPointer, parsePointer, valueAt } from '../src/model/pointer.js';

describe('JSON Pointers', () => {
  it('escape ~ and / in a segment (RFC 6901), and read them back', () => {
    assert.equal(escapeSegment('a/b~c'), 'a~1b~0c');
    assert.equal(escapeSegment('~1'), '~01');
    assert.equal(escapeSegment('plain'), 'plain');
    assert.equal(escapeSegment(3), '3');
    assert.equal(joinPointer('/spec', 'metadata', 'annotations', 'probe-lint.dev/ignore', 0), '/spec/metadata/annotations/probe-lint.dev~1ignore/0');
    assert.deepEqual(parsePointer('/metadata/annotations/probe-lint.dev~1ignore'), ['metadata', 'annotations', 'probe-lint.dev/ignore']);
    assert.deepEqual(parsePointer('/a~01'), ['a~1'], '~01 is ~1, not /');
    assert.deepEqual(parsePointer(''), []);
    assert.deepEqual(parsePointer('/'), ['']);
  });

  it('name a value, or nothing when the way down leaves objects', () => {
    const root = { a: { 'b/c': [10, { d: null }] } };
    assert.equal(valueAt(root, '/a/b~1c/0'), 10);
    assert.equal(valueAt(root, '/a/b~1c/1/d'), null);
    assert.equal(valueAt(root, '/a/b~1c/1/d/e'), undefined);
    assert.equal(valueAt(root, '/a/b~1c/0/x'), undefined);
    assert.equal(valueAt('text', '/length'), undefined);
    assert.equal(valueAt(root, ''), root);
  });
});

describe('deep copies', () => {
  it('copy objects and arrays, keep scalars, and keep an own __proto__ key a key', () => {
    const original = JSON.parse('{"a": [1, {"b": "x"}], "__proto__": {"polluted": true}, "n": null}') as Record<string, unknown>;
    const copy = cloneJson(original);
    assert.deepEqual(copy, original);
    assert.notEqual(copy.a, original.a);
    assert.notEqual((copy.a as unknown[])[1], (original.a as unknown[])[1]);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype, 'the prototype is untouched');
    assert.deepEqual(Object.keys(copy), ['a', '__proto__', 'n']);
    assert.equal((copy as { polluted?: unknown }).polluted, undefined);
    for (const scalar of [null, 0, 'x', true, undefined]) assert.equal(cloneJson(scalar), scalar);
  });
});

describe('globs on names', () => {
  it('* matches any run, ? one character, the rest itself; no glob matches everything', () => {
    const cases: [string | undefined, string | undefined, boolean][] = [
      [undefined, 'web', true],
      ['*', undefined, true],
      ['web', 'web', true],
      ['web', 'web2', false],
      ['web', 'we', false],
      ['w?b', 'wab', true],
      ['w?b', 'wb', false],
      ['web-*', 'web-canary', true],
      ['web-*', 'web-', true],
      ['web-*', 'api-web-1', false],
      ['*-canary', 'web-canary', true],
      ['*-canary', 'web-canary-2', false],
      ['a*b*c', 'a-b-c', true],
      ['a*b*c', 'a-c-b', false],
      ['a**', 'a', true],
      ['*a', '', false],
      ['', '', true],
      ['', 'x', false],
      ['x*', undefined, false],
      ['*', '', true],
    ];
    for (const [glob, value, expected] of cases) assert.equal(matchesGlob(glob, value), expected, `${glob} ~ ${value}`);
  });
});

describe('typo suggestions', () => {
  it('suggest the closest name within a third of the word (at least 2 edits), or a unique completion of 4+ letters', () => {
    const rules = ['timeout-not-below-period', 'liveness-mirrors-readiness', 'missing-liveness-probe', 'missing-readiness-probe'];
    assert.equal(closestMatch('timout-not-below-period', rules), 'timeout-not-below-period');
    assert.equal(closestMatch('liveness', rules), 'liveness-mirrors-readiness', 'a unique completion');
    assert.equal(closestMatch('missing', rules), undefined, 'two completions, and both too far');
    assert.equal(closestMatch('mis', ['mist', 'miss']), 'mist', 'below 4 letters, by distance: the first at the least');
    assert.equal(closestMatch('formt', ['format', 'fix']), 'format');
    assert.equal(closestMatch('xyz', ['format']), undefined);
    assert.equal(closestMatch('abcdef', ['abcxyz']), undefined, '3 edits in 6 letters is too far');
    assert.equal(closestMatch('abcdefghi', ['abcdefxyz']), 'abcdefxyz', '3 edits in 9 letters is close enough');
    assert.equal(didYouMean('formt', ['format']), ' (did you mean "format"?)');
    assert.equal(didYouMean('formt', ['format'], '`'), ' (did you mean `format`?)');
    assert.equal(didYouMean('zzz', ['format']), '');
  });

  it('count edits as Levenshtein does', () => {
    const cases: [string, string, number][] = [
      ['', '', 0],
      ['a', '', 1],
      ['', 'abc', 3],
      ['kitten', 'sitting', 3],
      ['flaw', 'lawn', 2],
      ['same', 'same', 0],
      ['ab', 'ba', 2],
    ];
    for (const [a, b, distance] of cases) {
      assert.equal(editDistance(a, b), distance, `${a} → ${b}`);
      assert.equal(editDistance(b, a), distance, `${b} → ${a}`);
    }
  });
});

describe('rule settings and cluster facts', () => {
  it('a rule is on unless "off" or enabled: false; a severity overrides, "off" and objects without one do not', () => {
    assert.deepEqual(
      ([undefined, 'off', 'error', { enabled: false }, { enabled: true }, {}] as (RuleSetting | undefined)[]).map((setting) => ruleEnabled(setting)),
      [true, false, true, false, true, true],
    );
    assert.deepEqual(
      ([undefined, 'off', 'warning', { severity: 'error' }, { enabled: true }] as (RuleSetting | undefined)[]).map((setting) => severityOverride(setting)),
      [undefined, undefined, 'warning', 'error', undefined],
    );
  });

  it('density comes from --pods-per-node, else the config, else is unknown; the threshold from the config or 50', () => {
    assert.equal(densePodsPerNode({}), 50);
    assert.equal(densePodsPerNode({ cluster: { densePodsPerNode: 80 } }), 80);
    assert.deepEqual(clusterFactsFrom({ cluster: { podsPerNode: 30, densePodsPerNode: 20 } }, 70), { podsPerNode: 70, densePodsPerNode: 20, source: 'flag' });
    assert.deepEqual(clusterFactsFrom({ cluster: { podsPerNode: 30 } }, undefined), { podsPerNode: 30, densePodsPerNode: 50, source: 'config' });
    assert.deepEqual(clusterFactsFrom({}, undefined), { podsPerNode: undefined, densePodsPerNode: 50, source: 'unknown' });
  });

  it('the config file is the nearest .probe-lint.yaml, else .probe-lint.yml, here or above; none at the root', () => {
    const root = mkdtempSync(join(tmpdir(), 'probe-lint-find-'));
    const deep = join(root, 'a', 'b');
    mkdirSync(deep, { recursive: true });
    assert.equal(findConfigFile(deep), undefined);
    writeFileSync(join(root, '.probe-lint.yml'), '');
    assert.equal(findConfigFile(deep), join(root, '.probe-lint.yml'));
    writeFileSync(join(root, 'a', '.probe-lint.yaml'), '');
    writeFileSync(join(root, 'a', '.probe-lint.yml'), '');
    assert.equal(findConfigFile(deep), join(root, 'a', '.probe-lint.yaml'));
  });
});

describe('rule docs', () => {
  it("each rule's README: a path in the package, a link on GitHub, its text; nothing for an unknown rule", () => {
    assert.match(ruleDocsPath('duplicate-key'), /rules\/duplicate-key\/README\.md$/);
    assert.equal(ruleDocsUrl('duplicate-key'), 'https://github.com/probe-lint/probe-lint/blob/main/rules/duplicate-key/README.md');
    assert.match(readRuleDocs('duplicate-key') ?? '', /^# duplicate-key\n/);
    assert.equal(readRuleDocs('no-such-rule'), undefined);
  });
});
