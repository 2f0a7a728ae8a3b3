// The user's own cache directory for probe-lint (renders, compiled code): outside any repository,
// and trusted only when it is the user's and no one else may write into it, so nothing a
// repository or another user planted there is ever read.
import { lstatSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$XDG_CACHE_HOME/probe-lint/<name>` (or `~/.cache/…`), created if missing; undefined when it cannot be trusted. */
export function ownCacheDirectory(name: string, env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  const directory = join(base, 'probe-lint', name);
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const stats = lstatSync(directory);
    const uid = process.getuid?.();
    // Only a directory of our own, that no one else may write into.
    if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid) || (stats.mode & 0o022) !== 0) return undefined;
    return directory;
  } catch {
    return undefined;
  }
}
