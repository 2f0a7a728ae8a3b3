// Which paths a run leaves out: the config's exclude and --exclude, matched as .gitignore matches.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../src/engine/config.js';
import { parseConfig } from '../src/engine/config-file.js';
import { exclusionOf, PathExclusion } from '../src/source/excluded-paths.js';

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
