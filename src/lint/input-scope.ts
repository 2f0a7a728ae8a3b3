// The findings a run reports are those located in what it was given: a file named alone (a staged
// file a hook passes, a base a developer edits) is linted through the chart or kustomization that
// owns it, but only the findings in that file are shown; the rest of the rendering's are counted
// apart, so that the findings point at the files being edited. Directories and stdin take all.
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { isInside } from '../source/read/tree-root.js';

export interface InputScope {
  /** Whether a finding located in `file` (as reports show it, relative to the working directory) is in scope. */
  includes(file: string | undefined): boolean;
  /** False when every finding is in scope (a directory or stdin among the inputs, or no file named alone). */
  readonly narrows: boolean;
}

/**
 * The chart or kustomization a file stands for as a whole: a chart's Chart.yaml or values file (its
 * ci/ values too), a kustomization file. Any finding of the rendering may come from it.
 */
function wholeUnitOf(file: string): string | undefined {
  const name = basename(file);
  const directory = dirname(file);
  if (/^(?:kustomization\.ya?ml|Kustomization)$/.test(name)) return directory;
  if (!/^(?:Chart\.yaml|values.*\.ya?ml|.*-values\.ya?ml)$/.test(name)) return undefined;
  if (existsSync(join(directory, 'Chart.yaml'))) return directory;
  // ci/*-values.yaml, the chart-testing convention.
  if (basename(directory) === 'ci' && existsSync(join(dirname(directory), 'Chart.yaml'))) return dirname(directory);
  return undefined;
}

/**
 * The files a change touches (--changed-since): a finding is in scope when it is located in one of
 * them, or in a chart or kustomization one of them stands for as a whole (its values file, its
 * kustomization file). It always narrows: a change that touches no manifest shows no finding.
 */
export function changeScope(changed: readonly string[], cwd: string): InputScope {
  const files = new Set<string>();
  const directories: string[] = [];
  for (const file of changed) {
    const owner = wholeUnitOf(file);
    if (owner !== undefined) directories.push(owner);
    else files.add(file);
  }
  return { narrows: true, includes: (file) => file === undefined || file === '-' || within(resolve(cwd, file), files, directories) };
}

/** In scope of both: a file named alone and the change, say. */
export function bothScopes(first: InputScope, second: InputScope): InputScope {
  if (!first.narrows) return second;
  if (!second.narrows) return first;
  return { narrows: true, includes: (file) => first.includes(file) && second.includes(file) };
}

function within(absolute: string, files: ReadonlySet<string>, directories: readonly string[]): boolean {
  return files.has(absolute) || directories.some((directory) => isInside(absolute, directory));
}

export function inputScope(paths: readonly string[], cwd: string): InputScope {
  const files = new Set<string>();
  const directories: string[] = [];
  let everything = false;
  for (const path of paths) {
    if (path === '-') {
      everything = true;
      continue;
    }
    const absolute = resolve(cwd, path);
    let directory = false;
    try {
      directory = statSync(absolute).isDirectory();
    } catch {
      // Unreadable: an input error already says so; it narrows to itself.
    }
    const owner = directory ? absolute : wholeUnitOf(absolute);
    if (owner !== undefined) directories.push(owner);
    else files.add(absolute);
  }
  const narrows = !everything && files.size > 0;
  return {
    narrows,
    includes(file) {
      if (!narrows || file === undefined || file === '-') return true;
      return within(resolve(cwd, file), files, directories);
    },
  };
}
