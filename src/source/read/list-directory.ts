import { readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

/** A directory's entries, sorted by name; none when it cannot be read (absent, not a directory). */
export function listDirectory(directory: string): Dirent[] {
  try {
    return readdirSync(directory, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

/** The paths of a directory's subdirectories, or of its regular files, sorted. */
export function pathsIn(directory: string, kind: 'directories' | 'files'): string[] {
  return listDirectory(directory)
    .filter((entry) => (kind === 'directories' ? entry.isDirectory() : entry.isFile()))
    .map((entry) => join(directory, entry.name));
}
