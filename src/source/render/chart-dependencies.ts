// A chart's dependencies as a fresh clone has them: which are missing from charts/ (before `helm
// dependency build`), which are charts of this repository that can stand in for them, and a copy of
// the chart that asks only for what it can have.
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { writeFileAtomic } from '../atomic-write.js';
import { dirname, join, resolve } from 'node:path';
import jsYaml from 'js-yaml';
import { listDirectory } from '../read/list-directory.js';
import type { TreeGuard } from '../read/tree-guard.js';

export interface ChartDependency {
  name: string;
  /** The name it renders under (`# Source: app/charts/<alias>/…`). */
  alias?: string;
  version?: string;
  repository?: string;
}

interface ChartMetadata {
  type?: string;
  dependencies: ChartDependency[];
}

/** What Chart.yaml (and, for apiVersion v1 charts, requirements.yaml) says of the chart's type and dependencies; helm reports anything else wrong. */
export function readChartMetadata(file: string): ChartMetadata {
  try {
    const parsed = jsYaml.load(readFileSync(file, 'utf8')) as { type?: unknown; dependencies?: unknown } | null;
    const listed = parsed?.dependencies ?? requirements(dirname(file));
    const dependencies = Array.isArray(listed)
      ? (listed as Record<string, unknown>[])
          .filter((entry) => typeof entry?.name === 'string')
          .map((entry) => ({
            name: entry.name as string,
            ...(typeof entry.alias === 'string' ? { alias: entry.alias } : {}),
            ...(typeof entry.version === 'string' ? { version: entry.version } : {}),
            ...(typeof entry.repository === 'string' ? { repository: entry.repository } : {}),
          }))
      : [];
    return { ...(typeof parsed?.type === 'string' ? { type: parsed.type } : {}), dependencies };
  } catch {
    return { dependencies: [] };
  }
}

function requirements(directory: string): unknown {
  const file = join(directory, 'requirements.yaml');
  if (!existsSync(file)) return undefined;
  try {
    return (jsYaml.load(readFileSync(file, 'utf8')) as { dependencies?: unknown } | null)?.dependencies;
  } catch {
    return undefined;
  }
}

/** A chart of the tree by the dependency's name: at its file:// path, or beside the chart. */
export function localDependency(chart: string, dependency: ChartDependency, guard: TreeGuard, allowNetwork: boolean): string | undefined {
  const candidates = [
    ...(dependency.repository?.startsWith('file://') ? [resolve(chart, dependency.repository.slice('file://'.length))] : []),
    join(dirname(resolve(chart)), dependency.name),
  ];
  return candidates.find((candidate) => {
    if (!guard.contains(candidate) || !existsSync(join(candidate, 'Chart.yaml')) || guard.chartProblem(candidate, allowNetwork) !== undefined) return false; // a remote schema too: only a whole chart stands in
    try {
      return (jsYaml.load(readFileSync(join(candidate, 'Chart.yaml'), 'utf8')) as { name?: unknown } | null)?.name === dependency.name;
    } catch {
      return false;
    }
  });
}

/** Dependencies with neither a directory `charts/<name>` nor an archive `charts/<name>-<version>.tgz`. */
export function missingDependencies(directory: string, dependencies: readonly ChartDependency[]): ChartDependency[] {
  const present = new Set<string>();
  for (const entry of listDirectory(join(directory, 'charts'))) {
    // A link to a chart counts as the chart (a library shared by a repository's charts, committed as charts/lib -> ../lib).
    if ((entry.isDirectory() || entry.isSymbolicLink()) && existsSync(join(directory, 'charts', entry.name, 'Chart.yaml'))) present.add(entry.name);
    const archive = /^(.+?)-\d[^/]*\.tgz$/.exec(entry.name);
    if (!entry.isDirectory() && archive) present.add(archive[1]!);
  }
  // file:// dependencies live beside the chart; helm copies them only on `dependency build`, so they count as missing too.
  return dependencies.filter((dependency) => !present.has(dependency.name));
}

export function describeDependency(dependency: ChartDependency): string {
  const version = dependency.version === undefined ? '' : ` ${dependency.version}`;
  const from = dependency.repository === undefined || dependency.repository === '' ? '' : ` from ${dependency.repository}`;
  return `${dependency.name}${version}${from}`;
}

/**
 * A copy of the chart whose Chart.yaml (or requirements.yaml) no longer lists the absent
 * dependencies, with the local ones copied into its charts/ (links inside the tree copied as their
 * targets, which the tree guard has checked).
 */
export function vendoredCopy(directory: string, absent: readonly ChartDependency[], local: ReadonlyMap<string, string>, scratch: string): string {
  const copy = join(scratch, 'chart');
  cpSync(directory, copy, { recursive: true, dereference: true });
  const gone = new Set(absent.map((dependency) => dependency.name));
  for (const name of ['Chart.yaml', 'requirements.yaml']) {
    const file = join(copy, name);
    if (!existsSync(file)) continue;
    const parsed = (jsYaml.load(readFileSync(file, 'utf8')) ?? {}) as { dependencies?: { name?: unknown }[] };
    if (!Array.isArray(parsed.dependencies)) continue;
    parsed.dependencies = parsed.dependencies.filter((dependency) => !gone.has(String(dependency?.name)));
    if (parsed.dependencies.length === 0) delete parsed.dependencies;
    writeFileAtomic(file, Buffer.from(jsYaml.dump(parsed)));
  }
  for (const [name, path] of local) {
    // Whatever the chart's own charts/ held under that name (a link, a stale copy) gives way to the dependency.
    rmSync(join(copy, 'charts', name), { recursive: true, force: true });
    cpSync(path, join(copy, 'charts', name), { recursive: true, dereference: true });
  }
  for (const lock of ['Chart.lock', 'requirements.lock']) rmSync(join(copy, lock), { force: true });
  return copy;
}
