// Which baseline file a lint run uses, if any: a module of its own so that a run without one never
// loads the baseline code (and the crypto its keys need).
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ProbeLintConfig } from '../engine/config.js';
import type { LintArguments } from './arguments.js';

export const DEFAULT_BASELINE_FILE = '.probe-lint-baseline.json';

/** Whether the run uses a baseline (reads, writes or prunes one): its findings are then keyed. */
export function baselineWanted(args: LintArguments, config: ProbeLintConfig, cwd: string): boolean {
  return baselinePath(args, config, cwd) !== undefined;
}

/** --baseline, else the config's (relative to its file), else the default file here when it exists (or is to be written or pruned). */
export function baselinePath(args: LintArguments, config: ProbeLintConfig, cwd: string): string | undefined {
  if (args.baseline !== undefined) return resolve(cwd, args.baseline);
  if (config.baseline !== undefined) return resolve(config.file === undefined ? cwd : dirname(config.file), config.baseline);
  const fallback = resolve(cwd, DEFAULT_BASELINE_FILE);
  return args.writeBaseline || args.pruneBaseline || existsSync(fallback) ? fallback : undefined;
}
