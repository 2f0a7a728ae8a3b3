import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { MAX_INPUT_BYTES } from '../inputs.js';

export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the tool could not be started at all (not found, not executable). */
  startError?: string;
}

/** Runs a renderer (helm, kubectl, kustomize) and collects what it prints; never throws. */
export function runTool(binary: string, args: readonly string[], cwd: string): Promise<ToolRun> {
  return new Promise((resolve) => {
    execFile(
      binary,
      args,
      { cwd, maxBuffer: MAX_INPUT_BYTES, timeout: 300_000, encoding: 'utf8', env: { ...process.env, HELM_DEBUG: 'false' } },
      (error, stdout, stderr) => {
        const code = (error as (NodeJS.ErrnoException & { code?: unknown }) | null)?.code;
        if (typeof code === 'string') resolve({ code: null, stdout: '', stderr: '', startError: code === 'ENOENT' ? 'not found' : code });
        else resolve({ code: error ? (typeof code === 'number' ? code : 1) : 0, stdout, stderr });
      },
    );
  });
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

/** The tool's own error message, the last meaningful lines of what it printed. */
export function toolMessage(run: ToolRun): string {
  if (run.startError !== undefined) return run.startError;
  const lines = run.stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('WARNING:') && !line.startsWith('walk.go'));
  return lines.slice(-3).join(' ') || `exited with code ${run.code}`;
}
