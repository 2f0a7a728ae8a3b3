// The engine for a file: the config found from its directory as the CLI finds it (the nearest
// .probe-lint.yaml), loaded again when that file changes on disk.
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { clusterFactsFrom, ConfigError, findConfigFile, type ProbeLintConfig } from '../engine/config.js';
import { loadConfigFile } from '../engine/config-file.js';
import { Engine } from '../engine/engine.js';
import type { AnyRule } from '../engine/rule.js';
import { exclusionOf, NO_EXCLUSION, type PathExclusion } from '../source/excluded-paths.js';

export type EngineFor =
  { engine: Engine; config: ProbeLintConfig; configFile: string | undefined; exclusion: PathExclusion } | { problem: string; configFile: string };

export class Engines {
  private readonly loaded = new Map<string, { stamp: string; result: EngineFor }>();
  private defaultEngine: EngineFor | undefined;

  /** `explicit`: the config named on the command line (--config), for every file. */
  constructor(
    private readonly rules: readonly AnyRule[],
    private readonly explicit: string | undefined,
  ) {}

  /** The engine for a file at `path` (or, for a buffer with no file, for the directory given). */
  forPath(path: string): EngineFor {
    const configFile = this.explicit ?? findConfigFile(dirname(path));
    if (configFile === undefined) return (this.defaultEngine ??= { engine: this.engineOf({}), config: {}, configFile: undefined, exclusion: NO_EXCLUSION });
    const stamp = stampOf(configFile);
    const cached = this.loaded.get(configFile);
    if (cached !== undefined && cached.stamp === stamp) return cached.result;
    let result: EngineFor;
    try {
      const config = loadConfigFile(configFile);
      result = { engine: this.engineOf(config), config, configFile, exclusion: exclusionOf(config) };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      result = { problem: `bad configuration: ${error.message}`, configFile };
    }
    this.loaded.set(configFile, { stamp, result });
    return result;
  }

  private engineOf(config: ProbeLintConfig): Engine {
    // The editor knows no cluster: density comes from the config, as in an offline CLI run.
    return new Engine(this.rules, { config, cluster: clusterFactsFrom(config, undefined), strict: false });
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
