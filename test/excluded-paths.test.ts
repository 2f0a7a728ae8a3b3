// Which paths a run leaves out: the config's exclude and --exclude, matched as .gitignore matches.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../src/engine/config.js';
import { parseConfig } from '../src/engine/config-file.js';
import { exclusionOf, PathExclusion } from '../src/source/read/excluded-paths.js';
import { compilePathGlob, compilePathGlobPrefixes, GlobError } from '../src/source/read/path-glob.js';
import { growthRatio, linearBound } from './linear-growth.js';
import fc from 'fast-check';

const BASE = '/repo';
const excluded = (patterns: string[], path: string) => new PathExclusion([{ base: BASE, patterns, origin: 'test' }]).excludedBy(join(BASE, path)) !== undefined;

describe('excluded paths', () => {
  it('a pattern that names a directory excludes everything under it, written as dir, dir/ or dir/**', () => {
    for (const pattern of ['hack', 'hack/', 'hack/**']) {
      assert.equal(excluded([pattern], 'hack/crd.template.yaml'), true, pattern);
      assert.equal(excluded([pattern], 'hack/deep/er/file.yaml'), true, pattern);
      assert.equal(excluded([pattern], 'hack'), true, pattern);
      assert.equal(excluded([pattern], 'hacks/file.yaml'), false, pattern);
      assert.equal(excluded([pattern], 'app/hack/file.yaml'), false, `${pattern} is anchored at the base`);
    }
  });

  it('** matches at any depth, * within one segment, and dot files are paths like any other', () => {
    assert.equal(excluded(['**/testdata'], 'api/krusty/testdata/remote/kustomization.yaml'), true);
    assert.equal(excluded(['**/testdata'], 'testdata/x.yaml'), true);
    assert.equal(excluded(['*.template.yaml'], 'crd.template.yaml'), true);
    assert.equal(excluded(['*.template.yaml'], 'make/crd.template.yaml'), false);
    assert.equal(excluded(['**/*.template.yaml'], 'make/crd.template.yaml'), true);
    assert.equal(excluded(['.github'], '.github/workflows/ci.yaml'), true);
    assert.equal(excluded(['{hack,make}'], 'make/x.yaml'), true);
    assert.equal(excluded(['hack'], 'app/deployment.yaml'), false);
  });

  it('a path outside the base, or the base itself, is never excluded by its patterns', () => {
    assert.equal(new PathExclusion([{ base: BASE, patterns: ['**'], origin: 'test' }]).excludedBy('/elsewhere/x.yaml'), undefined);
    assert.equal(new PathExclusion([{ base: BASE, patterns: ['**'], origin: 'test' }]).excludedBy(BASE), undefined);
    assert.equal(new PathExclusion([{ base: BASE, patterns: ['**'], origin: 'test' }]).excludedBy('/repo-other/x.yaml'), undefined);
  });

  it('says which source excluded it; the config counts from its own directory, and only with a file it came from', () => {
    const config = { exclude: ['hack'], file: '/repo/.probe-lint.yaml' };
    const exclusion = exclusionOf(config, [{ base: '/repo/sub', patterns: ['gen'], origin: '--exclude' }]);
    assert.match(exclusion.excludedBy('/repo/hack/a.yaml') ?? '', /^exclude: in .*\.probe-lint\.yaml$/);
    assert.equal(exclusion.excludedBy('/repo/sub/gen/a.yaml'), '--exclude');
    assert.equal(exclusion.excludedBy('/repo/gen/a.yaml'), undefined);
    assert.equal(exclusionOf({ exclude: ['hack'] }).excludedBy('hack/a.yaml'), undefined, 'no file, no base to count from');
    assert.equal(exclusionOf({}).excludedBy('hack/a.yaml'), undefined);
  });

  it('the config schema takes relative patterns only, naming the entry', () => {
    assert.deepEqual(parseConfig('exclude: [hack/, "**/testdata"]\n', 'c.yaml').exclude, ['hack/', '**/testdata']);
    assert.throws(
      () => parseConfig('exclude:\n  - /etc\n', 'c.yaml'),
      (error: unknown) =>
        error instanceof ConfigError &&
        /^c\.yaml:2:5: exclude\.0: an exclude pattern is relative to the config file.s directory, so it cannot start with "\/" \(got "\/etc"\)$/m.test(
          error.message,
        ),
    );
    assert.throws(() => parseConfig('exclude: hack\n', 'c.yaml'), ConfigError);
  });
});

describe('path globs', () => {
  it('read ?, [sets], ranges, negated sets, nested braces and quoting as .gitignore and picomatch do', () => {
    const cases: [string, string, boolean][] = [
      ['a?c.yaml', 'abc.yaml', true],
      ['a?c.yaml', 'a/c.yaml', false],
      ['[ab]x', 'bx', true],
      ['[a-c]x', 'cx', true],
      ['[!a-c]x', 'cx', false],
      ['[^a-c]x', 'dx', true],
      ['{a,{b,c}d}.yaml', 'cd.yaml', true],
      ['{a,{b,c}d}.yaml', 'd.yaml', false],
      ['\\*.yaml', '*.yaml', true],
      ['\\*.yaml', 'x.yaml', false],
      ['{x}', '{x}', true],
      ['a/**/b', 'a/b', true],
      ['a/**/b', 'a/x/y/b', true],
      ['a/**/b', 'a/x/y/c', false],
      ['**', 'any/depth/at/all', true],
      ['*', 'one/two', false],
    ];
    for (const [pattern, path, expected] of cases) assert.equal(compilePathGlob(pattern)(path), expected, `${pattern} ~ ${path}`);
  });

  it('agree with a plain reference matcher on generated patterns and paths', () => {
    // The reference: globs within one segment as a regular expression (backtracking, fine for these small cases).
    const reference = (pattern: string, text: string) =>
      new RegExp(
        `^${pattern
          .replace(/[.+^${}()|\\]/g, '\\$&')
          .replace(/\*/g, '[^/]*')
          .replace(/\?/g, '[^/]')}$`,
      ).test(text);
    fc.assert(
      fc.property(fc.stringMatching(/^[ab*?]{0,8}$/), fc.stringMatching(/^[ab]{0,10}$/), (pattern, text) => {
        assert.equal(compilePathGlob(pattern)(text), reference(pattern, text), `${pattern} ~ ${text}`);
      }),
      { numRuns: 2000, seed: 20261204 },
    );
  });

  // A backtracking matcher never finishes this one (the timeout only keeps a regression from hanging the suite); this one
  // takes at most 121 × 5000 steps.
  it('match in time bounded by pattern × path, whatever the pattern: many stars against a long name', { timeout: 60_000 }, () => {
    const pattern = `${'*a'.repeat(60)}*b`;
    const name = 'a'.repeat(5000);
    assert.equal(compilePathGlob(pattern)(name), false);
    const exclusion = new PathExclusion([{ base: BASE, patterns: [pattern], origin: 'test' }]);
    assert.equal(exclusion.excludedBy(join(BASE, 'dir', name)), undefined);
  });

  it('match braces that multiply (2^40 alternatives) against a deep tree in time that grows as pattern × path, never as their product', () => {
    const braces = (groups: number) => '{a,b}'.repeat(groups) + 'c';
    const deep = (depth: number) => Array.from({ length: depth }, () => 'ab'.repeat(20)).join('/');
    assert.equal(compilePathGlob(braces(40))(`${'ab'.repeat(20)}c`), true);
    assert.equal(compilePathGlob(braces(40))(`${'ab'.repeat(20)}d`), false);
    // Doubled pattern, same path; doubled path, same pattern: each at most linear.
    const byPattern = growthRatio(
      (groups) => compilePathGlobPrefixes(`**/${braces(groups)}`),
      (matches) => {
        for (let round = 0; round < 20; round++) matches(deep(15));
      },
      40,
    );
    assert.ok(byPattern < linearBound(), `pattern ×4 → ${byPattern.toFixed(1)}× the work`);
    const matcher = compilePathGlobPrefixes(`**/${braces(64)}`);
    const byPath = growthRatio(
      (depth) => deep(depth),
      (path) => {
        for (let round = 0; round < 20; round++) matcher(path);
      },
      15,
    );
    assert.ok(byPath < linearBound(), `path ×4 → ${byPath.toFixed(1)}× the work`);
  });

  it('answer for a path and its ancestors in one pass, as the prefix loop would', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[ab*?/{},]{1,10}$/), fc.stringMatching(/^[ab]{1,3}(\/[ab]{1,3}){0,3}$/), (pattern, path) => {
        let whole: (path: string) => boolean;
        try {
          whole = compilePathGlob(pattern);
        } catch (error) {
          assert.ok(error instanceof GlobError);
          return;
        }
        const parts = path.split('/');
        const expected = parts.some((_, index) => whole(parts.slice(0, index + 1).join('/')));
        assert.equal(compilePathGlobPrefixes(pattern)(path), expected, `${pattern} ~ ${path}`);
      }),
      { numRuns: 2000, seed: 20261207 },
    );
  });

  it('refuse a pattern that does not close, naming where it came from', () => {
    assert.throws(
      () => new PathExclusion([{ base: BASE, patterns: ['[abc'], origin: '--exclude' }]),
      (error: unknown) => error instanceof GlobError && /^--exclude: "\[abc": a "\[" is not closed$/.test(error.message),
    );
    assert.throws(() => compilePathGlob('{a,b'), /a "\{" is not closed/);
    assert.throws(() => compilePathGlob('a/[b'), /a "\[" is not closed/);
    assert.equal(compilePathGlob('{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}')('ababababa'), true);
  });
});
