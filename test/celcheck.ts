// The offline judge of the admission policies: test/cluster/k8s/celcheck, built with Go from the
// same Kubernetes release as the e2e API server (its admission plugin's CEL compiler and policy
// validator), once per change of its code, into ~/.cache/probe-lint.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

const MODULE = join(ROOT, 'test/cluster/k8s');

/** The binary, built if missing; or why it cannot be (no Go). */
export function celcheckBinary(): { path: string } | { unavailable: string } {
  const hash = createHash('sha256')
    .update(readFileSync(join(MODULE, 'celcheck/main.go')))
    .update(readFileSync(join(MODULE, 'go.sum')))
    .digest('hex')
    .slice(0, 12);
  const cache = join(process.env.PROBE_LINT_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'probe-lint'));
  const path = join(cache, `celcheck-${hash}`);
  if (existsSync(path)) return { path };
  if (spawnSync('go', ['version']).status !== 0)
    return { unavailable: 'Go is not installed: the offline policy check builds test/cluster/k8s/celcheck with Go 1.26 or later' };
  mkdirSync(cache, { recursive: true });
  const build = spawnSync('go', ['build', '-trimpath', '-o', `${path}.partial`, './celcheck'], { cwd: MODULE, encoding: 'utf8', timeout: 15 * 60_000 });
  if (build.status !== 0) throw new Error(`building celcheck failed: ${build.stderr}`);
  renameSync(`${path}.partial`, path);
  return { path };
}

export interface PolicyOutcome {
  refused?: string;
  failed: string[];
  errors: string[];
  audit: Record<string, string>;
}

export interface CelcheckResult {
  typeCheck: Record<string, string[]>;
  results: Record<string, PolicyOutcome>[];
}

/** Every object created in `namespace` under the policies (every object `probe-lint policies` prints). */
export function celcheck(
  binary: string,
  policies: readonly unknown[],
  namespace: unknown,
  objects: readonly unknown[],
  options: { typeCheck?: boolean } = {},
): CelcheckResult {
  const run = spawnSync(binary, options.typeCheck === true ? ['-typecheck'] : [], {
    input: JSON.stringify({ policies, namespace, objects }),
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`celcheck failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as CelcheckResult;
}
