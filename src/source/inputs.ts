import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
/** Directories that never hold the user's manifests. */
const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git']);

export interface InputFile {
  /** The path as the user will recognise it, or "-" for stdin. */
  path: string;
  text: string;
}

export interface InputProblem {
  path: string;
  message: string;
}

/**
 * Expands the command-line paths: files as given, directories recursively (*.yaml, *.yml,
 * *.json, sorted), "-" for stdin. A path that cannot be read is a problem, not a crash; the
 * others are still read.
 */
export function readInputs(paths: readonly string[], readStdin: () => string): { files: InputFile[]; problems: InputProblem[] } {
  const files: InputFile[] = [];
  const problems: InputProblem[] = [];
  const read = (path: string) => {
    try {
      files.push({ path, text: readFileSync(path, 'utf8') });
    } catch (error) {
      problems.push({ path, message: describeFsError(error) });
    }
  };
  const walk = (directory: string) => {
    let entries;
    try {
      entries = readdirSync(directory, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch (error) {
      problems.push({ path: directory, message: describeFsError(error) });
      return;
    }
    for (const entry of entries) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) walk(path);
      } else if (MANIFEST_EXTENSIONS.has(extname(entry.name).toLowerCase())) {
        read(path);
      }
    }
  };
  for (const path of paths) {
    if (path === '-') {
      files.push({ path: '-', text: readStdin() });
      continue;
    }
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (error) {
      problems.push({ path, message: describeFsError(error) });
      continue;
    }
    if (isDirectory) walk(path);
    else read(path);
  }
  return { files, problems };
}

function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  return (error as Error).message;
}
