// Paths a run never lints: the config's `exclude` (relative to the config file's directory) and
// --exclude (relative to the working directory). Matched as .gitignore matches: a pattern that
// matches a directory excludes everything under it, so `hack`, `hack/` and `hack/**` all work.
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { trimTrailing } from '../../model/trim-trailing.js';
import { compilePathGlobPrefixes, GlobError } from './path-glob.js';
import { shownPath } from './shown-path.js';

export interface ExcludeSource {
  /** Patterns are relative to this directory. */
  base: string;
  patterns: readonly string[];
  /** Where the patterns come from, for the notice when a path given on the command line is skipped. */
  origin: string;
}

export class PathExclusion {
  private readonly matchers: { base: string; origin: string; matches: (path: string) => boolean }[];

  constructor(sources: readonly ExcludeSource[]) {
    this.matchers = [];
    for (const source of sources) {
      if (source.patterns.length === 0) continue;
      const globs = source.patterns.map((pattern) => {
        try {
          // A trailing slash means "this directory", which the ancestor check below already covers.
          return compilePathGlobPrefixes(trimTrailing(pattern, '/'));
        } catch (error) {
          if (error instanceof GlobError) throw new GlobError(`${source.origin}: ${error.message}`);
          throw error;
        }
      });
      this.matchers.push({ base: resolve(source.base), origin: source.origin, matches: (path) => globs.some((matches) => matches(path)) });
    }
  }

  /** Where the pattern that excludes `path` (or a directory above it) comes from; undefined when it is linted. */
  excludedBy(path: string): string | undefined {
    const absolute = resolve(path);
    for (const matcher of this.matchers) {
      const inside = relative(matcher.base, absolute);
      if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) continue;
      // One pass over the path answers for it and every ancestor (a directory excludes all under it).
      if (matcher.matches(inside.split(sep).join('/'))) return matcher.origin;
    }
    return undefined;
  }
}

export const NO_EXCLUSION = new PathExclusion([]);

/** The config's exclude (relative to the config file's directory), and more patterns (--exclude) after it. */
export function exclusionOf(config: { exclude?: readonly string[]; file?: string }, more: readonly ExcludeSource[] = []): PathExclusion {
  const fromConfig =
    config.exclude === undefined || config.file === undefined
      ? []
      : [{ base: dirname(config.file), patterns: config.exclude, origin: `exclude: in ${shownPath(config.file)}` }];
  return new PathExclusion([...fromConfig, ...more]);
}
