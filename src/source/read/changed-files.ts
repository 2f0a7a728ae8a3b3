// The files a change touches, as git sees them: what differs between the work tree and the merge base
// of REF and HEAD (what a pull request shows), staged or not, and the untracked files git does not
// ignore. REF comes from a CI event or a user, so it is passed after --end-of-options (never read as
// an option), and git runs so that nothing a repository configures starts a program for a diff of
// names (no external diff, no textconv, no fsmonitor, no pager, no prompt).
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

export type ChangedFiles = { ref: string; base: string; files: string[] } | { problem: string };

/** Output git may print before it is stopped: names of a large change fit many times over. */
const MAX_GIT_OUTPUT = 64 * 1024 * 1024;
const GIT_TIMEOUT_MS = 60_000;

/** The absolute paths of the files changed since `ref` in the work tree holding `cwd`, or why they cannot be known. */
export function changedFilesSince(ref: string, cwd: string, env: Readonly<Record<string, string | undefined>>): ChangedFiles {
  if (ref === '' || ref.startsWith('-') || /[\0\n]/.test(ref)) return { problem: `--changed-since ${JSON.stringify(ref)} is not a git revision` };
  const git = (args: string[]) => {
    const run = spawnSync('git', ['-c', 'core.fsmonitor=false', ...args], {
      cwd,
      env: { ...env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_OPTIONAL_LOCKS: '0' },
      encoding: 'utf8',
      maxBuffer: MAX_GIT_OUTPUT,
      timeout: GIT_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (run.error !== undefined)
      return { ok: false as const, said: (run.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'git is not on PATH' : run.error.message };
    return run.status === 0 ? { ok: true as const, out: run.stdout } : { ok: false as const, said: run.stderr.trim().split('\n')[0] ?? `exit ${run.status}` };
  };
  const top = git(['rev-parse', '--show-toplevel']);
  if (!top.ok) return { problem: `--changed-since needs a git work tree: ${top.said}` };
  const root = top.out.trim();
  const commit = git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  if (!commit.ok)
    return {
      problem: `--changed-since ${ref}: no such commit here${isShallow(git) ? ' (this is a shallow clone: fetch it first, e.g. git fetch --depth=1 origin ' + ref + ')' : ''}`,
    };
  // The merge base, as a pull request's diff is made: what the base branch did since is not the change's.
  const mergeBase = git(['merge-base', '--end-of-options', commit.out.trim(), 'HEAD']);
  const base = mergeBase.ok ? mergeBase.out.trim() : commit.out.trim();
  const diff = git(['diff', '--name-only', '-z', '--no-renames', '--no-ext-diff', '--no-textconv', '--diff-filter=d', '--end-of-options', base, '--']);
  if (!diff.ok) return { problem: `--changed-since ${ref}: git diff failed: ${diff.said}` };
  const untracked = git(['ls-files', '--others', '--exclude-standard', '-z', '--full-name', '--', root]);
  if (!untracked.ok) return { problem: `--changed-since ${ref}: git ls-files failed: ${untracked.said}` };
  const names = [...diff.out.split('\0'), ...untracked.out.split('\0')].filter((name) => name !== '');
  return { ref, base, files: [...new Set(names.map((name) => resolve(root, name)))].sort() };
}

function isShallow(git: (args: string[]) => { ok: boolean; out?: string }): boolean {
  const shallow = git(['rev-parse', '--is-shallow-repository']);
  return shallow.ok && shallow.out?.trim() === 'true';
}
