// What every command shares: the process's streams, the configuration, rule selection from the
// command line, and cluster facts. Built once per run by main(), passed to the command.
import { RULES } from '../../rules/index.js';
import type { ClusterFacts } from '../engine/cluster-facts.js';
import type { ProgressListener } from '../model/progress.js';
import { clusterFactsFrom, ConfigError, type ProbeLintConfig, type RuleSetting } from '../engine/config.js';
import { discoverConfigFile } from '../engine/config-discovery.js';
import { didYouMean } from '../engine/did-you-mean.js';
import { UsageError } from './options.js';
import { visible } from '../report/visible.js';
import { exclusionOf, type PathExclusion } from '../source/read/excluded-paths.js';
import { GlobError } from '../source/read/path-glob.js';
import { resolve } from 'node:path';
import { LintSession, type EngineSettings, type LintInputs } from '../lint/index.js';
import type { RenderOptions } from '../source/read-inputs.js';

export interface CommandIo {
  stdout: (text: string) => void;
  /** Settles once stdout has written what it was given (a full pipe leaves the rest in memory): a long report waits for it between chunks. */
  stdoutWritten?: () => Promise<void>;
  stderr: (text: string) => void;
  readStdin: () => string | Buffer;
  /** Whether stdout is a terminal, and its width in columns when it is. */
  isTty: boolean;
  columns?: number;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** stderr when it is a terminal: where progress may be drawn. */
  errorTerminal?: NodeJS.WriteStream;
  /**
   * The process's own streams, for a command that speaks a protocol over them (lsp). A function:
   * touching process.stdin turns a piped stdin non-blocking, and readStdin's synchronous read then fails (EAGAIN).
   */
  streams?: () => { input: NodeJS.ReadableStream; output: NodeJS.WritableStream };
}

/** The config named on the command line, or the nearest trusted .probe-lint.yaml/.yml in the work tree, or none; what was passed over is said on stderr. */
export async function resolveConfig(explicit: string | undefined, io: Pick<CommandIo, 'cwd' | 'stderr'>): Promise<ProbeLintConfig> {
  let file = explicit;
  if (file === undefined) {
    const discovered = discoverConfigFile(io.cwd);
    for (const notice of discovered.notices) io.stderr(`probe-lint: ${visible(notice)}\n`);
    file = discovered.file;
  }
  // The YAML and schema libraries load only when there is a file to read.
  return file === undefined ? {} : (await import('../engine/config-file.js')).loadConfigFile(file);
}

/** Loads the config, or prints why it cannot be used; undefined means exit 2. */
export async function loadConfigOrReport(file: string | undefined, io: CommandIo, prefix = 'probe-lint'): Promise<ProbeLintConfig | undefined> {
  try {
    return await resolveConfig(file, io);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`${prefix}: bad configuration\n${error.message.split('\n').map(visible).join('\n')}\n`);
      return undefined;
    }
    throw error;
  }
}

/** What a run never lints: the config's exclude (relative to the config file) and --exclude (relative to the working directory). */
export function pathExclusion(config: ProbeLintConfig, cliPatterns: readonly string[], cwd: string): PathExclusion {
  try {
    return exclusionOf(config, [{ base: cwd, patterns: cliPatterns, origin: '--exclude' }]);
  } catch (error) {
    if (error instanceof GlobError) throw new UsageError(error.message);
    throw error;
  }
}

/** --enable and --disable on top of the config's rule settings; an unknown id is a usage error that suggests the right one. */
export function withRuleSelection(config: ProbeLintConfig, enable: readonly string[], disable: readonly string[]): ProbeLintConfig {
  const ids = RULES.map((rule) => rule.meta.id);
  for (const id of [...enable, ...disable]) {
    if (!ids.includes(id)) throw new UsageError(`unknown rule "${id}"${didYouMean(id, ids)}; run \`probe-lint rules\` for the list`);
  }
  if (enable.length === 0 && disable.length === 0) return config;
  const rules: Record<string, RuleSetting> = { ...(config.rules ?? {}) };
  for (const id of enable) {
    const current = rules[id];
    rules[id] = typeof current === 'object' ? { ...current, enabled: true } : current === undefined || current === 'off' ? { enabled: true } : current;
  }
  for (const id of disable) rules[id] = 'off';
  return { ...config, rules };
}

/**
 * Cluster facts for a lint run: --pods-per-node, else the config. A lint never reads a cluster: what it
 * lints may be a stranger's pull request, and a kubeconfig's exec plugin runs with the job's secrets.
 */
export function cliClusterFacts(args: { podsPerNode: number | undefined }, config: ProbeLintConfig): ClusterFacts {
  return clusterFactsFrom(config, args.podsPerNode);
}

/**
 * Colours: --color/--no-color win; then NO_COLOR (any value) turns them off and FORCE_COLOR
 * (other than "0") on; TERM=dumb turns them off; otherwise on for a terminal only.
 */
export function useColor(flag: boolean | undefined, io: CommandIo): boolean {
  if (flag !== undefined) return flag;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined) return io.env.FORCE_COLOR !== '0' && io.env.FORCE_COLOR !== 'false';
  if (io.env.TERM === 'dumb') return false;
  return io.isTty;
}

/** The progress of a command's long work: drawn on stderr when it is a terminal, not in CI, not with TERM=dumb or --no-progress. */
export interface CommandProgress {
  listener: ProgressListener | undefined;
  /** Writes to stderr without breaking the progress line (it is erased first, and drawn again later). */
  stderr: (text: string) => void;
  /** The work is over: the line is erased for good. */
  end: () => void;
}

export async function commandProgress(io: CommandIo, disabled: boolean): Promise<CommandProgress> {
  const terminal = io.errorTerminal;
  // CI=false or an empty CI is no CI (as the ci-info convention reads it).
  const inCi = io.env.CI !== undefined && io.env.CI !== '' && io.env.CI !== 'false' && io.env.CI !== '0';
  if (terminal === undefined || disabled || inCi || io.env.TERM === 'dumb') return { listener: undefined, stderr: io.stderr, end: () => {} };
  // Loaded only when drawn: a run in a pipe or in CI does not pay for it.
  const { ProgressLine } = await import('./progress-line.js');
  const line = new ProgressLine(terminal);
  return {
    listener: line.listener,
    stderr: (text) => {
      line.clear();
      io.stderr(text);
    },
    end: () => line.end(),
  };
}

/** What every command that reads inputs takes: how charts render, what to leave out, the tree they may read. */
export interface ReadingArguments {
  render: RenderOptions;
  exclude: string[];
  root: string | undefined;
  onlyManifests: boolean;
}

/**
 * The lint session of a command that reads inputs (lint, timeline, simulate): its engine, and the
 * one way inputs are read — excluded by `exclusionConfig`'s globs and the command line's, rendered as
 * asked, stdin and the environment from `io`, progress where it is drawn.
 */
export function readingSession(
  engine: EngineSettings,
  args: ReadingArguments,
  exclusionConfig: ProbeLintConfig,
  io: CommandIo,
  progress: CommandProgress,
): LintSession {
  return new LintSession(engine, {
    render: args.render,
    exclusion: pathExclusion(exclusionConfig, args.exclude, io.cwd),
    ...(args.root !== undefined ? { root: resolve(io.cwd, args.root) } : {}),
    onlyManifests: args.onlyManifests,
    readStdin: io.readStdin,
    env: io.env,
    ...(progress.listener !== undefined ? { progress: progress.listener } : {}),
  });
}

/**
 * For a command that only reads the inputs (timeline, simulate): the config, the session and what it
 * read, notices said on stderr; undefined when the config cannot be loaded (said, exit 2).
 */
export async function readCommandInputs(
  args: ReadingArguments & { config: string | undefined; noProgress: boolean; paths: string[] },
  io: CommandIo,
): Promise<{ session: LintSession; inputs: LintInputs; progress: CommandProgress } | undefined> {
  const config = await loadConfigOrReport(args.config, io);
  if (config === undefined) return undefined;
  const progress = await commandProgress(io, args.noProgress);
  const session = readingSession({ rules: RULES, config, cluster: clusterFactsFrom(config, undefined) }, args, config, io, progress);
  const inputs = await session.read(args.paths);
  for (const notice of inputs.notices) progress.stderr(`probe-lint: ${visible(notice)}\n`);
  return { session, inputs, progress };
}
