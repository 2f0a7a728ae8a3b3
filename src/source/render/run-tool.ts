import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the tool could not be started at all (not found, not executable). */
  startError?: string;
}

/** The first of `names` found on PATH, as an absolute path. */
export function findOnPath(names: readonly string[], env: Readonly<Record<string, string | undefined>>): string | undefined {
  const directories = (env.PATH ?? '').split(delimiter).filter((directory) => directory !== '');
  for (const name of names) {
    for (const directory of directories) {
      const candidate = join(directory, name);
      if (existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * The tool's own error message, the last meaningful lines of what it printed. Hints that name the
 * tool's own flags (helm's "Use --debug flag to render out invalid YAML") are left out: they are not
 * probe-lint's options.
 */
export function toolMessage(run: ToolRun): string {
  if (run.startError !== undefined) return run.startError;
  const lines = run.stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('WARNING:') && !line.startsWith('walk.go') && !/^Use --debug flag/i.test(line));
  return lines.slice(-3).join(' ') || `exited with code ${run.code}`;
}
