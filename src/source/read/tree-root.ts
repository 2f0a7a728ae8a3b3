// The tree an input belongs to, and whether a path (links resolved) lies inside it: what a chart, a
// kustomization or a linked plain manifest may read, and where a report may be written.
import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';

/** What "the tree being linted" is, where a message refuses a path outside it. */
export const TREE_HELP = 'the git work tree holding the input, else the input itself; --root DIR names a wider one';

/**
 * The tree an input belongs to: the root the user named (--root), else the top of the git work tree
 * that holds it (a pull request's checkout), else the input itself (a directory) or the directory of
 * a file — never the working directory around it: a chart linted from a home directory reads its own
 * files, not the home directory's.
 */
export function treeRootOf(path: string, named?: string): string {
  if (named !== undefined) return realOrResolved(named);
  const start = startOf(path);
  for (let directory = start; ; directory = dirname(directory)) {
    if (existsSync(join(directory, '.git'))) return directory;
    if (dirname(directory) === directory) return start;
  }
}

/** A directory (or a link to one, which the user named) is its own start; a file's (or a file link's) is the directory that lists it. */
function startOf(path: string): string {
  const absolute = resolve(path);
  try {
    if (lstatSync(absolute).isDirectory() || (lstatSync(absolute).isSymbolicLink() && statSync(absolute).isDirectory())) return realpathSync(absolute);
  } catch {
    // missing or unreadable: its directory, as written
  }
  return realOrResolved(dirname(absolute));
}

export function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Whether `path` (absolute) is `root` or below it. */
export function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The trees of a run's inputs: is a path, links resolved, inside one of them? */
export class TreeBounds {
  protected readonly roots: string[];

  constructor(roots: readonly string[]) {
    this.roots = [...new Set(roots.map(realOrResolved))];
  }

  /** Whether `path` (resolved through every link) lies inside the tree; a broken link does not. */
  contains(path: string): boolean {
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      return false;
    }
    return this.inside(real);
  }

  /** Inside the tree as written, without touching the file system (for paths named by a file, never opened). */
  containsLexically(path: string): boolean {
    return this.inside(resolve(path));
  }

  protected inside(absolute: string): boolean {
    return this.roots.some((root) => isInside(absolute, root));
  }

  /** The roots, for messages. */
  get rootList(): readonly string[] {
    return this.roots;
  }
}
