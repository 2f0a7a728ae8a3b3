// The lint session for a file: the config found from its directory as the CLI finds it (the nearest
// .probe-lint.yaml), loaded again when that file changes on disk.
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { clusterFactsFrom, ConfigError, type ProbeLintConfig } from '../engine/config.js';
import { discoverConfigFile } from '../engine/config-discovery.js';
import { loadConfigFile } from '../engine/config-file.js';
import type { AnyRule } from '../engine/rule.js';
import { LintSession } from '../lint/index.js';
import { exclusionOf, NO_EXCLUSION, type PathExclusion } from '../source/read/excluded-paths.js';
import { GlobError } from '../source/read/path-glob.js';
import type { RenderOptions } from '../source/read-inputs.js';

export type SessionFor =
  { session: LintSession; config: ProbeLintConfig; configFile: string | undefined; exclusion: PathExclusion } | { problem: string; configFile: string };

export class Sessions {
  private readonly loaded = new Map<string, { stamp: string; result: SessionFor }>();
  private defaultSession: SessionFor | undefined;

  /** `explicit`: the config named on the command line (--config), for every file. */
  constructor(
    private readonly rules: readonly AnyRule[],
    private readonly explicit: string | undefined,
    private readonly render: RenderOptions,
    private readonly env: Readonly<Record<string, string | undefined>>,
  ) {}

  /** The session for a file at `path` (or, for a buffer with no file, for the directory given). */
  forPath(path: string): SessionFor {
    const configFile = this.explicit ?? discoverConfigFile(dirname(path)).file;
    if (configFile === undefined)
      return (this.defaultSession ??= { session: this.sessionOf({}, NO_EXCLUSION), config: {}, configFile: undefined, exclusion: NO_EXCLUSION });
    const stamp = stampOf(configFile);
    const cached = this.loaded.get(configFile);
    if (cached !== undefined && cached.stamp === stamp) return cached.result;
    let result: SessionFor;
    try {
      const config = loadConfigFile(configFile);
      const exclusion = exclusionOf(config);
      result = { session: this.sessionOf(config, exclusion), config, configFile, exclusion };
    } catch (error) {
      if (!(error instanceof ConfigError) && !(error instanceof GlobError)) throw error;
      result = { problem: `bad configuration: ${error.message}`, configFile };
    }
    this.loaded.set(configFile, { stamp, result });
    return result;
  }

  private sessionOf(config: ProbeLintConfig, exclusion: PathExclusion): LintSession {
    // The editor knows no cluster: density comes from the config, as in an offline CLI run.
    return new LintSession(
      { rules: this.rules, config, cluster: clusterFactsFrom(config, undefined), strict: false },
      { render: this.render, exclusion, env: this.env },
    );
  }
}

/** Changes whenever the file is written (its time and size), without reading it. */
function stampOf(file: string): string {
  try {
    const stats = statSync(file);
    return `${stats.mtimeMs}:${stats.size}`;
  } catch {
    return 'gone';
  }
}
