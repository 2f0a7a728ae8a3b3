// Where a run's config comes from when none is named: the nearest .probe-lint.yaml between the start
// directory and the top of its git work tree — never above it, where another user (or a parent
// checkout) may have planted one — or only the start directory outside a work tree. A config that is
// not the user's, or that others may rewrite, is ignored and said so.
import { existsSync, lstatSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CONFIG_FILE_NAMES } from './config.js';

export interface DiscoveredConfig {
  /** The config to use, if any. */
  file: string | undefined;
  /** Configs passed over, and why (the caller says so on stderr or to the editor). */
  notices: string[];
}

/** The directories searched, nearest first: up to the work tree's top, or `start` alone outside a work tree. */
export function searchedDirectories(start: string): string[] {
  const first = resolve(start);
  const directories: string[] = [];
  for (let directory = first; ; directory = dirname(directory)) {
    directories.push(directory);
    if (existsSync(join(directory, '.git'))) return directories;
    if (dirname(directory) === directory) return [first];
  }
}

export function discoverConfigFile(start: string): DiscoveredConfig {
  const notices: string[] = [];
  for (const directory of searchedDirectories(start)) {
    for (const name of CONFIG_FILE_NAMES) {
      const candidate = join(directory, name);
      if (!existsSync(candidate)) continue;
      const distrust = distrustOf(candidate);
      if (distrust === undefined) return { file: candidate, notices };
      notices.push(`ignored ${candidate}: ${distrust}; name it with --config to use it anyway`);
    }
  }
  return { file: undefined, notices };
}

/** Why a config file cannot be trusted: owned by someone else, or in reach of others' writes. */
function distrustOf(file: string): string | undefined {
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  // Without users (Windows), there is no one else to distrust.
  if (uid === undefined) return undefined;
  const own = lstatSync(file);
  if (own.isSymbolicLink()) return 'it is a symbolic link';
  if (own.uid !== uid) return `it belongs to another user (uid ${own.uid})`;
  const directory = statSync(dirname(file));
  // Group write counts only for a group that is not the user's own (user private groups share it with no one).
  const othersMayWrite = (stat: { mode: number; gid: number }) => (stat.mode & 0o002) !== 0 || ((stat.mode & 0o020) !== 0 && stat.gid !== gid);
  if (othersMayWrite(own)) return 'others may write it';
  if (othersMayWrite(directory)) return `others may write its directory ${dirname(file)}`;
  if (directory.uid !== uid && directory.uid !== 0) return `its directory belongs to another user (uid ${directory.uid})`;
  return undefined;
}
