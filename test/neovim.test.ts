// A real editor: Neovim from Debian, headless, configured with the README's snippet, drives
// `probe-lint lsp` (test/neovim/drive.lua): open, wait for diagnostics, edit, apply a code action,
// hover, save. What it saw must be what the CLI reports. Skipped where Neovim is not installed (.ci/run installs it, and CI never skips).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CLI, ROOT, runCli } from './helpers.js';

const found = spawnSync('nvim', ['--version'], { encoding: 'utf8' });
const unavailable = found.status === 0 ? undefined : 'Neovim (nvim) is not installed: apt-get install neovim';
if (unavailable !== undefined && process.env.CI !== undefined) throw new Error(`the editor test cannot run: ${unavailable}`);

interface Seen {
  line: number;
  col: number;
  code: string;
  severity: number;
  message: string;
}

interface Drive {
  failure?: string;
  opened: Seen[];
  edited: Seen[];
  fixed: Seen[];
  actions: string[];
  hover?: string;
  saved: string;
}

const places = (seen: readonly Seen[]) => seen.map((item) => `${item.line + 1}:${item.col + 1} ${item.code}`).sort();

function cliPlaces(file: string): string[] {
  const output = JSON.parse(runCli([file, '--format', 'json', '--fail-on', 'never']).stdout) as { findings: { line: number; column: number; rule: string }[] };
  return output.findings.map((finding) => `${finding.line}:${finding.column} ${finding.rule}`).sort();
}

describe('Neovim with probe-lint lsp', { skip: unavailable }, () => {
  it('shows the findings, lints edits, applies a fix, hovers with the timeline, and saves what the CLI then agrees with', () => {
    const work = mkdtempSync(join(tmpdir(), 'probe-lint-nvim-'));
    try {
      const file = join(work, 'shop.yaml');
      copyFileSync(join(ROOT, 'examples/shop.yaml'), file);
      const outFile = join(work, 'out.json');
      // The documented Neovim configuration as written, with `probe-lint` on PATH.
      const readme = readFileSync(join(ROOT, 'docs/editors.md'), 'utf8');
      const snippet = /```lua\n(-- Neovim [^\n]*\n[\s\S]*?)```/.exec(readme);
      assert.ok(snippet, 'the documented Neovim configuration');
      writeFileSync(join(work, 'init.lua'), snippet[1]!);
      mkdirSync(join(work, 'bin'));
      writeFileSync(join(work, 'bin/probe-lint'), `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`, { mode: 0o755 });
      const run = spawnSync('nvim', ['--headless', '--clean', '-n', '-u', 'NONE', '-c', `luafile ${join(ROOT, 'test/neovim/drive.lua')}`], {
        cwd: work,
        encoding: 'utf8',
        timeout: 120_000,
        env: {
          ...process.env,
          PATH: `${join(work, 'bin')}:${process.env.PATH ?? ''}`,
          PROBE_LINT_FILE: file,
          PROBE_LINT_OUT: outFile,
          PROBE_LINT_INIT: join(work, 'init.lua'),
        },
      });
      let drive: Drive;
      try {
        drive = JSON.parse(readFileSync(outFile, 'utf8')) as Drive;
      } catch {
        assert.fail(`Neovim wrote nothing (exit ${run.status}, signal ${run.signal}): ${run.stderr}${run.stdout}`);
      }
      assert.equal(drive.failure, undefined, drive.failure);

      assert.deepEqual(places(drive.opened), cliPlaces(join(ROOT, 'examples/shop.yaml')));
      assert.ok(drive.opened.some((item) => item.code === 'timeout-not-below-period' && item.severity === 2));
      assert.ok(!drive.edited.some((item) => item.code === 'timeout-not-below-period'));
      assert.ok(drive.actions.includes('Fix readiness-termination-grace-period'), drive.actions.join('\n'));
      assert.ok(drive.actions.some((title) => title.startsWith('Ignore readiness-termination-grace-period')));
      assert.ok(!drive.fixed.some((item) => item.code === 'readiness-termination-grace-period'));
      assert.match(drive.hover ?? '', /^\*\*livenessProbe\*\* of container `storefront`/);
      assert.match(drive.hover ?? '', /livenessProbe restarts the container when a check fails at once: 20-30 s after the app starts failing/);

      const saved = readFileSync(file, 'utf8');
      assert.equal(saved, drive.saved);
      const original = readFileSync(join(ROOT, 'examples/shop.yaml'), 'utf8');
      assert.equal(saved, original.replace('timeoutSeconds: 10', 'timeoutSeconds: 1').replace('            terminationGracePeriodSeconds: 5\n', ''));
      assert.deepEqual(places(drive.fixed), cliPlaces(file), 'what Neovim shows last is what the CLI reports on the saved file');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
