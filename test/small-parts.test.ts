// The small pieces many modules stand on: JSON Pointers, deep copies, globs, typo suggestions, rule
// settings and config discovery, rule docs. Each pinned where a slip would change what users see.
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { flowQuestionMark } from '../src/source/parse/go-yaml-strictness.js';
import { LineIndex } from '../src/source/parse/line-index.js';
import { literalParts, rendersAs } from '../src/source/origin/locate-template.js';
import { trimTrailing } from '../src/model/trim-trailing.js';
import { discoverConfigFile } from '../src/engine/config-discovery.js';
import { clusterFactsFrom, densePodsPerNode, ruleEnabled, severityOverride, type ProbeLintConfig, type RuleSetting } from '../src/engine/config.js';
import { formatRate } from '../rules/exec-probe-dense-cluster/index.js';
import { densityOf, unknownCluster } from '../src/engine/cluster-facts.js';
import { closestMatch, didYouMean, editDistance } from '../src/engine/did-you-mean.js';
import { celString } from '../src/engine/cel.js';
import { severityRank } from '../src/engine/finding.js';
import { formatMessage } from '../src/engine/rule.js';
import { RunFacts, selectingService } from '../src/engine/run-facts.js';
import { countText, quotedFromCluster } from '../src/model/describe.js';
import { windowText } from '../src/model/timing.js';
import { ellipsize, textWidth, wrapText } from '../src/report/svg-text-fit.js';
import { growthRatio, linearBound } from './linear-growth.js';
import type { EffectiveProbe } from '../src/model/effective-probe.js';
import { matchesGlob } from '../src/engine/glob.js';
import { readRuleDocs, ruleDocsPath, ruleDocsUrl } from '../src/engine/rule-docs.js';
import { IGNORE_ANNOTATION, parseIgnoreAnnotation, SuppressionPolicy, type SuppressionSubject } from '../src/engine/suppression.js';
import { isTemplateParameter, isValidHeaderName, isValidPortName, isValidPortNumber } from '../src/model/validation.js';
import { CONTAINER_TYPE, decodeIssues, describeValue, isInt32, isInt64 } from '../src/model/decode.js';
import { cloneJson } from '../src/model/json-value.js';
import { escapeSegment, joinPointer, parsePointer, valueAt } from '../src/model/pointer.js';
import { SourceFile } from '../src/source/parse/source-file.js';
import { ROOT, runNodeAsync } from './helpers.js';

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
    // Without escapes the pointer is read segment by segment, empty segments included.
    const plain = { spec: { template: { spec: [1, { x: 2 }] } }, '': { '': 'both empty' }, a: { '': 'trailing' } };
    assert.deepEqual(valueAt(plain, '/spec/template/spec/1'), { x: 2 });
    assert.equal(valueAt(plain, '/spec/template/spec/1/x'), 2);
    assert.equal(valueAt(plain, '/spec/template/spec/0/x'), undefined);
    assert.equal(valueAt(plain, '/spec/nothing/deeper'), undefined);
    assert.equal(valueAt(plain, '//'), 'both empty');
    assert.equal(valueAt(plain, '/a/'), 'trailing');
    assert.deepEqual(valueAt(plain, '/'), { '': 'both empty' });
    // Past a null or a string, escaped or not, there is nothing (a string's length is no value of the document).
    assert.equal(valueAt({ a: { d: null } }, '/a/d/e'), undefined);
    assert.equal(valueAt({ a: 'text' }, '/a/length'), undefined);
    assert.equal(valueAt({ 'a/b': 'text' }, '/a~1b/length'), undefined);
  });
});

describe('positions of pointers in YAML', () => {
  const at = (source: SourceFile, document: number, pointer: string) => {
    const { line, column } = source.locate(document, pointer);
    return `${line}:${column}`;
  };

  it('finds keys and items in block, flow and nested collections, and the nearest ancestor of what is missing', () => {
    const source = new SourceFile(
      't.yaml',
      ['a:', '  b: [10, {c: 1}]', '  d:', '    - x', '    - {e: 2, f: [3]}', '---', '{top: {inner: 1}, list: [1, 2]}', '---', '- one', '- two: 2', ''].join(
        '\n',
      ),
    );
    assert.deepEqual(
      [at(source, 0, '/a/b/1/c'), at(source, 0, '/a/d/1/f/0'), at(source, 0, '/a/d/0'), at(source, 0, '/a/missing'), at(source, 0, '/a/d/9')],
      ['2:12', '5:18', '4:7', '1:1', '3:3'],
    );
    // A document that is one flow mapping, and one that is a sequence.
    assert.deepEqual([at(source, 1, '/top/inner'), at(source, 1, '/list/1'), at(source, 2, '/1/two'), at(source, 2, '/0')], ['7:8', '7:29', '10:3', '9:3']);
  });

  it('points at the last of two equal keys, the one Kubernetes keeps, and past a complex key', () => {
    const source = new SourceFile('t.yaml', ['x: 1', 'm:', '  z: 1', 'x: 2', '? [k]', ': v', 'w: {q: 1}', ''].join('\n'));
    assert.deepEqual([at(source, 0, '/x'), at(source, 0, '/m/z'), at(source, 0, '/w/q')], ['4:1', '3:3', '7:5']);
    assert.deepEqual(
      source.duplicateKeys.map((duplicate) => [duplicate.key, duplicate.position.line]),
      [['x', 4]],
    );
  });

  it('names a key written twice beside a merge key, and not merge keys written twice, nor a key that overrides a merged one', () => {
    const source = new SourceFile(
      't.yaml',
      ['base: &b {x: 1, y: 2, z: 3}', 'more: &m {w: 4}', 'item:', '  <<: *b', '  <<: *m', '  x: 9', '  a: 1', '  a: 2', "  '1': one", '  1: uno', ''].join(
        '\n',
      ),
    );
    assert.deepEqual(
      source.duplicateKeys.map((duplicate) => [duplicate.key, duplicate.position.line, duplicate.position.column]),
      [
        ['a', 8, 3],
        ['1', 10, 3],
      ],
    );
    assert.equal((source.documents[0]!.value as { item: Record<string, unknown> }).item.a, 2, 'the last value is kept');
  });

  it('finds keys that are not strings by the text js-yaml keys them with, and keys that merge keys bring', () => {
    const source = new SourceFile('t.yaml', ['base: &b {port: 1}', '1: one', 'null: nothing', 'true: yes', 'svc:', '  <<: *b', '  name: x', ''].join('\n'));
    assert.deepEqual(
      [at(source, 0, '/1'), at(source, 0, '/null'), at(source, 0, '/true'), at(source, 0, '/svc/name'), at(source, 0, '/svc/port')],
      ['2:1', '3:1', '4:1', '7:3', '5:1'],
    );
  });

  it('places what is deep in a large file (records grown in place) as in the same document alone', () => {
    const document = (index: number) =>
      `kind: Pod\nmetadata:\n  name: p${index}\nspec:\n  containers:\n    - name: c\n      ports: [{containerPort: ${index}}]\n`;
    const text = Array.from({ length: 4000 }, (_, index) => document(index)).join('---\n');
    assert.ok(text.length > 256 * 1024, 'past the size where records grow in place');
    const large = new SourceFile('large.yaml', text);
    const alone = new SourceFile('alone.yaml', document(3999));
    const last = large.locate(3999, '/spec/containers/0/ports/0/containerPort');
    const expected = alone.locate(0, '/spec/containers/0/ports/0/containerPort');
    assert.deepEqual([last.line - large.positionAt(large.documentOffset(3999)!).line + 1, last.column], [expected.line, expected.column]);
    assert.equal(large.locate(3999, '/metadata/name').line, 3999 * 8 + 3);
  });

  it('keeps each file its own places while files parsed after it reuse the work space and the table of keys', () => {
    const first = new SourceFile('first.yaml', 'a: 1\nb:\n  c: [1, 2]\n');
    // The same keys in another layout: no key is named twice because an earlier file held it too.
    const second = new SourceFile('second.yaml', 'b: {c: [1, 2, 3]}\na: 2\n---\nb: 1\n');
    assert.deepEqual(second.duplicateKeys, []);
    // More distinct keys than one table holds: the file after it starts a new table.
    const many = new SourceFile('many.yaml', Array.from({ length: 70_000 }, (_, index) => `k${index}: ${index}`).join('\n') + '\nk5: again\n');
    const after = new SourceFile('after.yaml', 'x: 1\nb:\n  c: [0]\n  c: [1]\n');
    assert.deepEqual(
      [at(first, 0, '/b/c/1'), at(first, 0, '/a'), at(second, 0, '/b/c/2'), at(second, 1, '/b'), at(many, 0, '/k69999'), at(after, 0, '/b/c/0')],
      ['3:10', '1:1', '1:15', '4:1', '70000:1', '4:7'],
    );
    assert.deepEqual(
      [...many.duplicateKeys, ...after.duplicateKeys].map((duplicate) => [duplicate.key, duplicate.position.line]),
      [
        ['k5', 70001],
        ['c', 4],
      ],
    );
  });

  it('holds a bounded table of keys after files with long keys of their own are let go', async () => {
    // 80 files of 10 distinct keys of 100,000 characters each: 80 MB of keys, which a table that
    // kept every file's keys would hold after the files are gone.
    const script = `
      import { SourceFile } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist/src/source/parse/source-file.js')).href)};
      const used = () => (globalThis.gc(), process.memoryUsage().heapUsed);
      new SourceFile('warm.yaml', 'a: 1\\n');
      const before = used();
      for (let file = 0; file < 80; file++) {
        const text = Array.from({ length: 10 }, (_, key) => 'k' + file + '-' + key + 'x'.repeat(100000) + ': 1').join('\\n');
        new SourceFile('long-keys.yaml', text);
      }
      process.stdout.write(String(used() - before));`;
    const run = await runNodeAsync(['--expose-gc', '--input-type=module', '-e', script]);
    assert.equal(run.code, 0, run.stderr);
    const grownMb = Number(run.stdout) / 1e6;
    assert.ok(grownMb < 20, `the heap grew by ${grownMb.toFixed(1)} MB`);
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
      ['*web', 'web', true],
      ['a*b*c', 'abc', true],
      ['?*', undefined, false],
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

  it('the config file is the nearest .probe-lint.yaml, else .probe-lint.yml, up to the top of the git work tree and never above it', () => {
    const above = mkdtempSync(join(tmpdir(), 'probe-lint-find-'));
    const root = join(above, 'repo');
    const deep = join(root, 'a', 'b');
    mkdirSync(deep, { recursive: true });
    mkdirSync(join(root, '.git'));
    writeFileSync(join(above, '.probe-lint.yaml'), 'planted above the work tree');
    assert.deepEqual(discoverConfigFile(deep), { file: undefined, notices: [] }, 'nothing above the work tree is read');
    writeFileSync(join(root, '.probe-lint.yml'), '');
    assert.equal(discoverConfigFile(deep).file, join(root, '.probe-lint.yml'));
    writeFileSync(join(root, 'a', '.probe-lint.yaml'), '');
    writeFileSync(join(root, 'a', '.probe-lint.yml'), '');
    assert.equal(discoverConfigFile(deep).file, join(root, 'a', '.probe-lint.yaml'));
    // Outside a work tree, only the directory it starts in.
    const loose = mkdtempSync(join(tmpdir(), 'probe-lint-find-loose-'));
    mkdirSync(join(loose, 'sub'));
    writeFileSync(join(loose, '.probe-lint.yaml'), '');
    assert.equal(discoverConfigFile(join(loose, 'sub')).file, undefined);
    assert.equal(discoverConfigFile(loose).file, join(loose, '.probe-lint.yaml'));
  });

  it('passes over, and says so, a config others may write or that belongs to someone else', () => {
    const root = mkdtempSync(join(tmpdir(), 'probe-lint-trust-'));
    mkdirSync(join(root, '.git'));
    const shared = join(root, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    writeFileSync(join(shared, '.probe-lint.yaml'), '');
    writeFileSync(join(root, '.probe-lint.yaml'), '');
    const found = discoverConfigFile(shared);
    assert.equal(found.file, join(root, '.probe-lint.yaml'), 'the trusted one further up is used');
    assert.deepEqual(found.notices, [
      `ignored ${join(shared, '.probe-lint.yaml')}: others may write its directory ${shared}; name it with --config to use it anyway`,
    ]);
    chmodSync(join(root, '.probe-lint.yaml'), 0o666);
    assert.match(discoverConfigFile(root).notices[0]!, /: others may write it;/);
    chmodSync(join(root, '.probe-lint.yaml'), 0o644);
    if (process.getuid?.() === 0) {
      chownSync(join(root, '.probe-lint.yaml'), 4242, 4242);
      assert.deepEqual(discoverConfigFile(root), {
        file: undefined,
        notices: [`ignored ${join(root, '.probe-lint.yaml')}: it belongs to another user (uid 4242); name it with --config to use it anyway`],
      });
    }
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

describe('who may exempt a finding', () => {
  const subject = (metadata: SuppressionSubject['metadata'], rule = 'liveness-mirrors-readiness'): SuppressionSubject => ({
    rule,
    identity: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' },
    container: 'web',
    metadata,
  });
  const judge = (config: ProbeLintConfig, target: SuppressionSubject, strict = false) =>
    new SuppressionPolicy(config, { strict, today: () => '2026-12-01' }).judge(target);
  const annotated = (value: string, key = IGNORE_ANNOTATION) => [{ annotations: { [key]: value } }];

  it('reads an annotation as rule ids before the first # and the reason after it', () => {
    assert.deepEqual(parseIgnoreAnnotation('k', ' a , b,, # vendor image # one endpoint '), {
      key: 'k',
      rules: ['a', 'b'],
      reason: 'vendor image # one endpoint',
    });
    assert.deepEqual(parseIgnoreAnnotation('k', '*'), { key: 'k', rules: ['*'], reason: '' });
    assert.deepEqual(parseIgnoreAnnotation('k', '#only a reason'), { key: 'k', rules: [], reason: 'only a reason' });
  });

  it("the object's annotation, the pod template's, or the container's own suppresses its rules or *, saying which and why", () => {
    assert.deepEqual(judge({}, subject(annotated('liveness-mirrors-readiness # one /health'))), {
      kind: 'suppressed',
      suppression: { by: 'annotation', reason: `${IGNORE_ANNOTATION}: one /health` },
    });
    assert.deepEqual(judge({}, subject([undefined, { annotations: { [`${IGNORE_ANNOTATION}.web`]: '*' } }])), {
      kind: 'suppressed',
      suppression: { by: 'annotation', reason: `${IGNORE_ANNOTATION}.web` },
    });
    assert.deepEqual(judge({}, subject(annotated('*', `${IGNORE_ANNOTATION}.sidecar`))), { kind: 'kept' }, "another container's annotation");
    assert.deepEqual(
      judge({}, { ...subject(annotated('*', `${IGNORE_ANNOTATION}.web`), 'duplicate-key'), container: undefined }),
      { kind: 'kept' },
      'a finding on no container',
    );
    assert.deepEqual(judge({}, subject(annotated('missing-liveness-probe'))), { kind: 'kept' }, 'another rule');
    assert.deepEqual(
      judge({}, subject([{ annotations: null } as never, { annotations: 'x' } as never, { annotations: { [IGNORE_ANNOTATION]: 5 } } as never])),
      { kind: 'kept' },
    );
  });

  it('annotations count only when allowed: not with --strict or suppression.annotations: false; with annotationRules, only for those rules', () => {
    const target = subject(annotated('*'));
    assert.equal(judge({}, target, true).kind, 'kept');
    assert.equal(judge({ suppression: { annotations: false } }, target).kind, 'kept');
    assert.equal(judge({ suppression: { annotations: true } }, target).kind, 'suppressed');
    assert.equal(judge({ suppression: { annotationRules: ['missing-liveness-probe'] } }, target).kind, 'kept');
    assert.equal(judge({ suppression: { annotationRules: ['liveness-mirrors-readiness'] } }, target).kind, 'suppressed');
  });

  it('the config exempts by rule (default every rule), kind, namespace, name and container globs, until it expires', () => {
    const target = subject([]);
    const entry = { kind: 'Deploy*', namespace: 'sh?p', name: 'web', container: 'w*', reason: 'LEGACY-1' };
    assert.deepEqual(judge({ ignore: [entry] }, target), { kind: 'suppressed', suppression: { by: 'config', reason: 'LEGACY-1' } });
    assert.deepEqual(judge({ ignore: [{ ...entry, rules: ['liveness-mirrors-readiness'] }] }, target).kind, 'suppressed');
    assert.deepEqual(judge({ ignore: [{ ...entry, rules: ['*'] }] }, target).kind, 'suppressed');
    for (const miss of [{ rules: ['duplicate-key'] }, { kind: 'StatefulSet' }, { namespace: 'prod' }, { name: 'api' }, { container: 'sidecar' }])
      assert.deepEqual(judge({ ignore: [{ ...entry, ...miss }] }, target), { kind: 'kept' }, JSON.stringify(miss));
    assert.deepEqual(judge({ ignore: [{ ...entry, expires: '2026-12-01' }] }, target).kind, 'suppressed', 'good through its last day');
    assert.deepEqual(judge({ ignore: [{ ...entry, expires: '2026-11-30' }] }, target), {
      kind: 'expired',
      note: 'the exemption "LEGACY-1" expired on 2026-11-30',
    });
    assert.deepEqual(
      judge(
        {
          ignore: [
            { ...entry, expires: '2026-01-01', reason: 'first' },
            { ...entry, expires: '2026-02-01', reason: 'second' },
          ],
        },
        target,
      ),
      { kind: 'expired', note: 'the exemption "first" expired on 2026-01-01' },
    );
    assert.deepEqual(
      judge(
        {
          ignore: [
            { ...entry, expires: '2026-01-01' },
            { ...entry, reason: 'current' },
          ],
        },
        target,
      ),
      {
        kind: 'suppressed',
        suppression: { by: 'config', reason: 'current' },
      },
    );
    assert.deepEqual(judge({ ignore: [entry] }, target, true).kind, 'suppressed', '--strict leaves the config its exemptions');
  });
});

describe("the API server's checks on probe fields", () => {
  it('port names: 1 to 15 of a-z, 0-9 and -, a letter among them, no - at either end or twice', () => {
    for (const name of ['http', 'a', 'web-2', 'abcdefghijklmno', 'h2c', '9a']) assert.equal(isValidPortName(name), true, name);
    for (const name of ['', 'abcdefghijklmnop', 'Http', '8080', '-web', 'web-', 'we--b', 'we_b', ' web', 'web\n'])
      assert.equal(isValidPortName(name), false, JSON.stringify(name));
  });

  it('port numbers 1 to 65535; header names of letters, digits and -', () => {
    assert.deepEqual([0, 1, 65535, 65536, 8.5, -1].map(isValidPortNumber), [false, true, true, false, false, false]);
    assert.deepEqual(['X-Probe', 'a1', '', 'X Probe', 'X_Probe', 5].map(isValidHeaderName), [true, true, false, false, false, false]);
  });

  it('an OpenShift ${PARAM} or ${{PARAM}} is a template parameter only inside a Template', () => {
    assert.deepEqual(
      ['${PORT}', '${{PORT}}', 'x-${P_1}', '$PORT', '${}', 8080].map((value) => isTemplateParameter(value, true)),
      [true, true, true, false, false, false],
    );
    assert.equal(isTemplateParameter('${PORT}', false), false);
    assert.equal(isTemplateParameter('${PORT}', undefined), false);
  });
});

describe('what the API server cannot decode', () => {
  const issues = (container: unknown) =>
    decodeIssues(container, CONTAINER_TYPE, '/c', '').map((issue) => `${issue.path} ${issue.pointer}: ${issue.expected}; got ${describeValue(issue.value)}`);

  it('checks each field the rules read by its Go type: strings, int32 and int64 ranges, int-or-string, lists and mappings', () => {
    assert.deepEqual(
      issues({
        name: 7,
        image: true,
        restartPolicy: [],
        livenessProbe: { periodSeconds: 2 ** 31, timeoutSeconds: -(2 ** 31), terminationGracePeriodSeconds: 2 ** 53 },
      }),
      [
        'name /c/name: a string; got 7',
        'image /c/image: a string; got true (a boolean: YAML 1.1, which kubectl reads, makes unquoted yes/no/on/off/y/n booleans)',
        'restartPolicy /c/restartPolicy: a string; got a list',
        'livenessProbe.periodSeconds /c/livenessProbe/periodSeconds: a whole number from -2147483648 to 2147483647 (int32); got 2147483648',
      ],
    );
    assert.deepEqual(issues({ livenessProbe: { periodSeconds: 2 ** 31 - 1, failureThreshold: 1.5, terminationGracePeriodSeconds: 2 ** 64 } }), [
      'livenessProbe.failureThreshold /c/livenessProbe/failureThreshold: a whole number from -2147483648 to 2147483647 (int32); got 1.5',
      'livenessProbe.terminationGracePeriodSeconds /c/livenessProbe/terminationGracePeriodSeconds: a whole number (int64); got above 9223372036854775807, past int64',
    ]);
    assert.deepEqual(issues({ ports: { name: 'http' }, env: [{ name: 'A', value: 1 }, null], readinessProbe: 'tcp' }), [
      'ports /c/ports: a list; got a mapping',
      'env[0].value /c/env/0/value: a string; got 1',
      'readinessProbe /c/readinessProbe: a mapping; got "tcp"',
    ]);
    assert.deepEqual(issues({ ports: [{ containerPort: '80', protocol: 6 }, 'x'], startupProbe: ['exec'] }), [
      'ports[0].containerPort /c/ports/0/containerPort: a whole number from -2147483648 to 2147483647 (int32); got "80"',
      'ports[0].protocol /c/ports/0/protocol: a string; got 6',
      'ports[1] /c/ports/1: a mapping; got "x"',
      'startupProbe /c/startupProbe: a mapping; got a list',
    ]);
    assert.deepEqual(issues({ name: null, image: undefined, livenessProbe: { tcpSocket: { port: 'http' } }, readinessProbe: { httpGet: { port: 8080.5 } } }), [
      'readinessProbe.httpGet.port /c/readinessProbe/httpGet/port: a port number (int32) or a port name (string); got 8080.5',
    ]);
    assert.deepEqual(issues(Object.create({ name: 5 }) as unknown), [], 'inherited keys are not fields');
  });

  it('describes values as they were written, in YAML terms', () => {
    assert.deepEqual([NaN, Infinity, -Infinity, 3, 'x', true, [1], { a: 1 }, null].map(describeValue), [
      '.nan (not a number, which JSON cannot carry)',
      '.inf (infinity, which JSON cannot carry)',
      '-.inf (infinity, which JSON cannot carry)',
      '3',
      '"x"',
      'true (a boolean: YAML 1.1, which kubectl reads, makes unquoted yes/no/on/off/y/n booleans)',
      'a list',
      'a mapping',
      'null',
    ]);
    assert.deepEqual([2 ** 31 - 1, -(2 ** 31), 2 ** 31, -(2 ** 31) - 1, 1.5, '1'].map(isInt32), [true, true, false, false, false, false]);
    // int64's bounds are not doubles: the YAML reader keeps each literal on its side of them (below), so 2^63 itself is past the top.
    assert.deepEqual([2 ** 63, -(2 ** 63), 2 ** 63 - 1024, 2 ** 64, 1.5].map(isInt64), [false, true, true, false, false]);
    assert.equal(describeValue(2 ** 64), 'above 9223372036854775807, past int64');
    assert.equal(describeValue(-(2 ** 64)), 'below -9223372036854775808, past int64');
  });
});

describe('words for messages', () => {
  const probe = (raw: Record<string, unknown>) => ({ raw, failureThreshold: 3 }) as unknown as EffectiveProbe;

  it('marks a value left out, written null or written 0 as the default', () => {
    for (const raw of [{}, { failureThreshold: null }, { failureThreshold: 0 }])
      assert.equal(countText(probe(raw), 'failureThreshold'), '3 (default)', JSON.stringify(raw));
    assert.equal(countText(probe({ failureThreshold: 3 }), 'failureThreshold'), '3');
  });

  it('quotes what the cluster wrote on one line, trimmed, at most 160 characters', () => {
    assert.equal(quotedFromCluster('  Liveness probe failed:\nHTTP 500\u202e  '), '"Liveness probe failed: HTTP 500"');
    assert.equal(quotedFromCluster('x'.repeat(160)), `"${'x'.repeat(160)}"`);
    assert.equal(quotedFromCluster('x'.repeat(161)), `"${'x'.repeat(157)}..."`);
  });

  it('writes seconds whole, or with one decimal', () => {
    assert.deepEqual([windowText({ fromSeconds: 2, toSeconds: 2.04 }), windowText({ fromSeconds: 0.5, toSeconds: 12 })], ['2-2 s', '0.5-12 s']);
  });

  it('takes a word cut short, of four letters or more, for the one name it begins', () => {
    assert.equal(closestMatch('minP', ['minPeriodSeconds', 'maxSurge']), 'minPeriodSeconds');
    assert.equal(closestMatch('min', ['minPeriodSeconds', 'maxSurge']), undefined);
  });

  it('writes exec forks per second whole from 10 up, with one decimal below', () => {
    assert.deepEqual([36.67, 10, 6.67, 6, 2.5].map(formatRate), ['37', '10', '6.7', '6', '2.5']);
  });

  it('fills message placeholders from the data, and says which one has none', () => {
    assert.equal(formatMessage('{a} and {b}', { a: 'x', b: 2 }), 'x and 2');
    assert.throws(() => formatMessage('{a}', undefined), /^Error: message placeholder \{a\} has no data$/);
    assert.throws(() => formatMessage('{a} {b}', { a: 'x' }), /^Error: message placeholder \{b\} has no data$/);
  });
});

describe('cluster density', () => {
  it('is unknown without a pod count, and a stated density wins over the count', () => {
    assert.deepEqual(unknownCluster(), { podsPerNode: undefined, densePodsPerNode: unknownCluster().densePodsPerNode, source: 'unknown' });
    assert.equal(densityOf(unknownCluster()), 'unknown');
    assert.equal(densityOf({ ...unknownCluster(), podsPerNode: 5, dense: true }), 'dense');
    assert.equal(densityOf({ ...unknownCluster(), podsPerNode: 500, dense: false }), 'sparse');
  });
});

describe('which Services select a pod, from odd objects', () => {
  it('selects nothing for labels written null, a Service without spec or selector, and reads ports that are no mappings as none', () => {
    const service = (spec?: unknown) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, ...(spec === undefined ? {} : { spec }) });
    assert.equal(selectingService(service()), undefined);
    assert.equal(selectingService(service({ ports: [{ port: 80 }] })), undefined);
    assert.deepEqual(selectingService(service({ selector: { app: 'web' }, ports: [null, 'http', { port: 80 }, { targetPort: 'web' }] }))?.targetPorts, [
      80,
      'web',
    ]);
    const facts = new RunFacts([selectingService(service({ selector: { app: 'web' } }))!]);
    assert.deepEqual(facts.servicesSelecting(undefined, null as unknown as undefined), []);
    assert.deepEqual(
      facts.servicesSelecting(undefined, { app: 'web' }).map((found) => found.name),
      ['s'],
    );
  });
});

describe('values in messages', () => {
  it('says what was written: null as null, a mapping and a list by their kind', () => {
    assert.deepEqual([null, {}, [], 'x'].map(describeValue), ['null', 'a mapping', 'a list', '"x"']);
  });
});

describe('severities and CEL text', () => {
  it('ranks error over warning over info', () => {
    assert.deepEqual((['info', 'error', 'warning'] as const).map(severityRank), [1, 3, 2]);
  });

  it('writes text as a CEL string literal, escaping backslashes and quotes', () => {
    assert.equal(celString("it's C:\\dir"), "'it\\'s C:\\\\dir'");
  });
});

describe("go-yaml's end of a plain scalar at ? in a flow collection", () => {
  it('finds it on the line go-yaml refuses, whatever the value before the collection, and not in quotes, comments or block text', () => {
    for (const text of [
      'httpGet: {path: /x?local=true, port: http}\n',
      'args:\n  - [a, b?c]\n',
      'key: &anchor [a, b?c]\n',
      '{"path": x?y}\n',
      'first: ok\nsecond: {a: 1}\nthird: {path: /x?y}\n',
      'why: not?\n# and this?\nhttpGet: {path: /x?y}\n',
      'httpGet: {path: /x?y}',
    ])
      assert.notEqual(flowQuestionMark(text), undefined, text);
    for (const text of [
      'httpGet: {path: "/x?local=true", port: 80}\n',
      "httpGet: {path: '/x?local=true', port: 80}\n",
      'ports: [80] # why not 8080?\n',
      'description: see [the docs](https://example.com/x?y)\n',
      'url: https://example.com/x?y=[1]\n',
      '{"url": "https://example.com/x?y", "n": [1]}\n',
      'key: [&a "x?y", !!str \'z?\']\n',
    ])
      assert.equal(flowQuestionMark(text), undefined, text);
  });
});

describe('template names matched without regular expressions', () => {
  // The expressions they replaced, which backtracked without bound on long inputs: on these short
  // ones, the two must agree everywhere.
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const byExpression = (written: string, name: string, gap: number) =>
    new RegExp(
      `^${written
        .split(/\{\{.*?\}\}/)
        .map(escape)
        .join(gap === 0 ? '.*?' : '.+?')}$`,
    ).test(name);

  it('a written name renders a name exactly when the expression of its parts said so', () => {
    const written = fc.stringMatching(/^[ab{}.-]{0,12}$/);
    const name = fc.stringMatching(/^[ab.-]{0,12}$/);
    fc.assert(
      fc.property(written, name, fc.constantFrom(0, 1), (w, n, gap) => rendersAs(literalParts(w), n, gap) === byExpression(w, n, gap)),
      { numRuns: 20_000 },
    );
  });

  it('splits a written name around its closed actions only', () => {
    assert.deepEqual(literalParts('{{ .Release.Name }}-web-{{ .Values.x }}'), ['', '-web-', '']);
    assert.deepEqual(literalParts('a{{b'), ['a{{b']);
    assert.deepEqual(literalParts('{{{ x }}}'), ['', '}']);
  });

  it('trims a trailing run of any of the characters given, and nothing else', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a/.,0]{0,20}$/), fc.constantFrom('/', '.,:;', '0'), (text, characters) => {
        const expected = text.replace(new RegExp(`[${escape(characters)}]+$`), '');
        return trimTrailing(text, characters) === expected;
      }),
    );
  });
});

describe('line and column of an offset', () => {
  /** As an editor counts: CRLF is one break, a lone CR or LF is one; columns from 1. */
  function naive(text: string, offset: number) {
    let line = 1;
    let start = 0;
    for (let index = 0; index < offset; index++) {
      if (text[index] === '\r' && text[index + 1] === '\n') continue;
      if (text[index] === '\n' || text[index] === '\r') {
        line++;
        start = index + 1;
      }
    }
    return { line, column: offset - start + 1 };
  }

  it('agrees with counting the breaks one by one, for LF, CRLF and lone CR, short texts and long ones (property)', () => {
    const text = fc.oneof(
      fc.stringMatching(/^[a\n\r ]{0,40}$/),
      // Past the first guess of a line every 32 characters, so the table grows.
      fc.array(fc.constantFrom('\n', 'a', '\n\n\n'), { maxLength: 400 }).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(text, fc.nat(), (text, at) => {
        const offset = text.length === 0 ? 0 : at % (text.length + 1);
        assert.deepEqual(new LineIndex(text).positionOf(offset), naive(text, offset));
      }),
      { numRuns: 500 },
    );
  });
});

describe('text fitted to its room in an SVG', () => {
  it('wraps at spaces, cuts a word longer than a line, and ends a note past its last line with an ellipsis', () => {
    const width = textWidth('x'.repeat(20), 12);
    assert.deepEqual(wrapText('aaaa bbbb cccc dddd eeee', width, 12), ['aaaa bbbb cccc dddd', 'eeee']);
    assert.deepEqual(wrapText('x'.repeat(45), width, 12), ['x'.repeat(20), 'x'.repeat(20), 'x'.repeat(5)]);
    const lines = wrapText(Array.from({ length: 40 }, () => 'word').join(' '), width, 12, 3);
    assert.equal(lines.length, 3);
    assert.ok(lines[2]!.endsWith('…') && lines.every((line) => textWidth(line, 12) <= width), JSON.stringify(lines));
  });

  it('shortens a name from its end and a path from its start, within the width', () => {
    const width = textWidth('x'.repeat(10), 12);
    assert.equal(ellipsize('short', width, 12), 'short');
    const name = ellipsize('Deployment/shop/storefront', width, 12);
    assert.ok(name.startsWith('Deploy') && name.endsWith('…') && textWidth(name, 12) <= width, name);
    const path = ellipsize('deploy/overlays/production/web.yaml', width, 12, { keep: 'end' });
    assert.ok(path.startsWith('…') && path.endsWith('web.yaml') && textWidth(path, 12) <= width, path);
    assert.ok(textWidth('名前', 12) > textWidth('ab', 12), 'wide characters count more');
  });

  it('takes time linear in the text, however long a name or a note', () => {
    const width = textWidth('x'.repeat(80), 12);
    const text = (size: number) => Array.from({ length: size }, (_, index) => (index % 7 === 0 ? 'x'.repeat(400) : 'word')).join(' ');
    assert.ok(growthRatio(text, (input) => wrapText(input, width, 12), 2_000) < linearBound());
    assert.ok(
      growthRatio(
        (size) => 'n'.repeat(size * 50),
        (input) => ellipsize(input, width, 14, { bold: true }),
        2_000,
      ) < linearBound(),
    );
  });
});
