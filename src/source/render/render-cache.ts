// Renders kept between runs, so that an unchanged chart costs nothing on the next run (a pre-commit
// hook renders the same charts again and again). The key is a SHA-256 over everything a rendering
// depends on: every file of the chart (and of dependencies taken from the tree), the values files
// and --set values, the flags, and the renderer binary (path, size, modification time). The cache
// lives in the user's cache directory, outside any repository, and is trusted only when that
// directory is the user's own and not writable by others; each entry is a regular file that must
// carry its own key, so nothing planted or truncated is ever used.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../atomic-write.js';
import { ownCacheDirectory } from '../cache-directory.js';
import type { ToolRun } from './run-tool.js';

/** A cached entry larger than this is not a rendering of ours. */
const MAX_ENTRY_BYTES = 64 * 1024 * 1024;
/** Entries kept; the oldest are removed beyond this. */
const MAX_ENTRIES = 500;

export class RenderCache {
  private constructor(private readonly directory: string) {}

  /** The cache in the user's cache directory, or undefined when it cannot be trusted or is turned off. */
  static open(env: Readonly<Record<string, string | undefined>> = process.env): RenderCache | undefined {
    if (env.PROBE_LINT_NO_RENDER_CACHE === '1') return undefined;
    const directory = ownCacheDirectory('render', env);
    return directory === undefined ? undefined : new RenderCache(directory);
  }

  /** The key of a rendering: a hash of its parts, in order. */
  static key(parts: readonly (string | Buffer)[]): string {
    const hash = createHash('sha256');
    for (const part of parts) {
      const bytes = typeof part === 'string' ? Buffer.from(part) : part;
      hash.update(`${bytes.length}:`);
      hash.update(bytes);
    }
    return hash.digest('hex');
  }

  get(key: string): ToolRun | undefined {
    const file = join(this.directory, `${key}.json`);
    try {
      const stats = lstatSync(file);
      if (!stats.isFile() || stats.size > MAX_ENTRY_BYTES) return undefined;
      const entry = JSON.parse(readFileSync(file, 'utf8')) as { key?: unknown; code?: unknown; stdout?: unknown; stderr?: unknown };
      if (entry.key !== key || typeof entry.code !== 'number' || typeof entry.stdout !== 'string' || typeof entry.stderr !== 'string') return undefined;
      return { code: entry.code, stdout: entry.stdout, stderr: entry.stderr };
    } catch {
      return undefined;
    }
  }

  /** Keeps a finished rendering (never one that was stopped or could not start); never throws. */
  set(key: string, run: ToolRun): void {
    if (run.code === null || run.startError !== undefined) return;
    try {
      writeFileAtomic(join(this.directory, `${key}.json`), Buffer.from(JSON.stringify({ key, code: run.code, stdout: run.stdout, stderr: run.stderr })), {
        mode: 0o600,
      });
      this.prune();
    } catch {
      // A cache that cannot be written is only slower next time.
    }
  }

  /** The oldest entries go once there are too many. */
  private prune(): void {
    const names = readdirSync(this.directory).filter((name) => name.endsWith('.json'));
    if (names.length <= MAX_ENTRIES) return;
    const aged = names.map((name) => ({ name, time: statSync(join(this.directory, name)).mtimeMs })).sort((a, b) => a.time - b.time);
    for (const { name } of aged.slice(0, names.length - MAX_ENTRIES)) unlinkSync(join(this.directory, name));
  }
}

/** Every regular file under `directory`, as path and content, in a stable order: what a chart's rendering reads. */
export function treeContent(directory: string): (string | Buffer)[] {
  const parts: (string | Buffer)[] = [];
  // Links are followed, as helm follows them; one back to a directory on the way down is not (the tree
  // guard refuses such a chart before it is rendered, so a loop never reaches here).
  const walk = (folder: string, relative: string, ancestors: ReadonlySet<string>) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      const stats = statSync(path);
      if (stats.isDirectory()) {
        const real = realpathSync(path);
        if (!ancestors.has(real)) walk(path, `${relative}${name}/`, new Set([...ancestors, real]));
      } else if (stats.isFile()) parts.push(`${relative}${name}`, readFileSync(path));
    }
  };
  walk(directory, '', new Set([realpathSync(directory)]));
  return parts;
}

/** What identifies a renderer binary without running it. */
export function binaryIdentity(path: string): string {
  try {
    const stats = statSync(path);
    return `${path}:${stats.size}:${stats.mtimeMs}`;
  } catch {
    return path;
  }
}
