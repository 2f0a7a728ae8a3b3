import type { RuntimeEvidence } from '../src/engine/runtime-evidence.js';
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RULES } from '../rules/index.js';
import type { ClusterFacts } from '../src/engine/cluster-facts.js';
import { unknownCluster } from '../src/engine/cluster-facts.js';
import type { ProbeLintConfig } from '../src/engine/config.js';
import { Engine, type LintResult } from '../src/engine/engine.js';
import { LintSession } from '../src/lint/index.js';
import type { LocatedFinding } from '../src/report/located.js';
import type { SourceFile } from '../src/source/parse/source-file.js';
import { clusterFactsFrom } from '../src/engine/config.js';
import { defineRule } from '../src/engine/rule.js';
import type { ContainerRole } from '../src/model/pod-site.js';

/** The repository root (tests run from dist/test). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = join(ROOT, 'dist/src/cli/bin.js');
export const SHARED = join(ROOT, '../shared');

export interface LintOutcome extends LintResult {
  located: LocatedFinding[];
  source: SourceFile;
}

/** Lints YAML text in-process with the real parser, engine and rules. */
export function lintText(
  text: string,
  options: { config?: ProbeLintConfig; cluster?: ClusterFacts; strict?: boolean; today?: string; file?: string; evidence?: RuntimeEvidence | undefined } = {},
): LintOutcome {
  const config = options.config ?? {};
  const engine = new Engine(RULES, {
    config,
    cluster: options.cluster ?? (config.cluster ? clusterFactsFrom(config, undefined) : unknownCluster()),
    strict: options.strict ?? false,
    ...(options.today ? { today: options.today } : {}),
    ...(options.evidence ? { evidence: options.evidence } : {}),
  });
  const lint = new LintSession(engine).lintText(options.file ?? 'test.yaml', text);
  return { ...lint.result, located: lint.findings, source: lint.source };
}

/** A finding as `--format json` prints it. */
export interface JsonFinding {
  rule: string;
  messageId: string;
  severity: string;
  message: string;
  file: string | null;
  line: number | null;
  column: number | null;
  container: string | null;
  pointer: string;
  resource: { apiVersion: string; kind: string; name: string | null; namespace: string | null };
  rendered?: { from: string; root?: string; values?: string; inside?: string; line: number; column: number };
  alsoIn?: string[];
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI as a separate process, the way users and CI do. `killAfterMs`: a hang guard (the
 * run is killed, and its code is null); a test's own timeout cannot fire while this waits.
 */
export function runCli(args: string[], options: { input?: string; cwd?: string; env?: Record<string, string>; killAfterMs?: number } = {}): CliRun {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    ...(options.killAfterMs === undefined ? {} : { timeout: options.killAfterMs, killSignal: 'SIGKILL' as const }),
    cwd: options.cwd ?? ROOT,
    input: options.input ?? '',
    encoding: 'utf8',
    // FORCE_COLOR from a test runner would colour the output the tests read.
    // Every run renders afresh unless a test asks for the cache (test/render-cache.test.ts).
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', PROBE_LINT_NO_RENDER_CACHE: '1', ...options.env },
    maxBuffer: 256 * 1024 * 1024,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Minimal valid Pod with one container; `container` fields are merged in. */
export function podYaml(containerFields: string, podFields = ''): string {
  const indent = (text: string, spaces: number) =>
    text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => ' '.repeat(spaces) + line)
      .join('\n');
  return `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
${indent(podFields, 2)}
  containers:
    - name: c
      image: example/c:1
${indent(containerFields, 6)}
`;
}

/** Like runCli, without blocking this process: for tests whose servers run in the test process. */
export function runCliAsync(args: string[], options: { input?: string; cwd?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  return runNodeAsync([CLI, ...args], options);
}

/** Node with these arguments (a script, or `-e` code) as a separate process, without blocking this one. */
export function runNodeAsync(args: string[], options: { input?: string; cwd?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', PROBE_LINT_NO_RENDER_CACHE: '1', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

export const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it gives a value, and returns it; fails naming `what` after `timeoutMs`. */
export async function eventually<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs: number, intervalMs = 200): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await wait(intervalMs);
  }
}

/** Polls until `condition` holds; fails naming `what` after `timeoutMs`. For state reached by background work. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 8000): Promise<void> {
  for (let waited = 0; !(await condition()); waited += 25) {
    if (waited > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await wait(25);
  }
}

/** A rule that throws on every container of `roles`: what a rule failure does to a run. */
export function throwingRule(roles: ContainerRole[]) {
  return defineRule({
    meta: {
      id: 'throws',
      severity: 'warning',
      summary: 't',
      remediation: 't',
      scope: { roles },
      policy: { notExpressible: 't' },
      messages: { m: { short: 'm', long: 'm' } },
    },
    checkContainer() {
      throw new Error('boom');
    },
  });
}
