// Charts: rendered with `helm template`, each document mapped back to its template by the
// `# Source:` line helm writes above it.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import jsYaml from 'js-yaml';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Position } from '../../model/position.js';
import type { ResourceOrigin } from '../../model/resource.js';
import type { InputFile, InputProblem } from '../inputs.js';
import type { RenderedOrigin } from '../rendered.js';
import type { SourceFile } from '../source-file.js';
import type { ChartUnit } from './discover.js';
import { locateInTemplate, matchInTemplate, type FileCache, type TemplateMatch } from './locate-source.js';
import { binaryIdentity, RenderCache, treeContent } from './render-cache.js';
import { renderFailure, type RenderSandbox, type SandboxedRun } from './sandbox.js';
import type { TreeGuard } from './tree-guard.js';

const SOURCE_LINE = /^# Source: (.+)$/gm;

export interface HelmOptions {
  helm: string;
  values: readonly string[];
  set: readonly string[];
  files: FileCache;
  sandbox: RenderSandbox;
  guard: TreeGuard;
  /** Renders kept between runs; none when off. */
  cache?: RenderCache | undefined;
}

export interface ChartRendering {
  files: InputFile[];
  problems: InputProblem[];
  /** What the user should know that is not an error (a library chart skipped, defaults not rendered as chart-testing does). */
  notices: string[];
}

/**
 * Renders a chart with its values.yaml (plus --values/--set when the chart was given on the
 * command line), and once more per `ci/*-values.yaml` (the chart-testing convention). A library
 * chart renders nothing by design and is skipped. Dependencies missing from `charts/` (a fresh
 * clone before `helm dependency build`) are one input problem, and the chart's own templates are
 * rendered without them. As chart-testing does, a chart whose `ci/` values render is not failed for
 * defaults that do not (a `required` value only the `ci/` files give).
 */
export async function renderChart(chart: ChartUnit, options: HelmOptions): Promise<ChartRendering> {
  const rendering: ChartRendering = { files: [], problems: [], notices: [] };
  const chartFile = join(chart.directory, 'Chart.yaml');
  const refused = options.guard.chartProblem(chart.directory, options.sandbox.limits.allowNetwork);
  if (refused !== undefined) {
    rendering.problems.push({ path: chartFile, message: `cannot render the chart ${chart.directory}: ${refused}` });
    return rendering;
  }
  const metadata = readChartMetadata(chartFile);
  if (metadata.type === 'library') {
    rendering.notices.push(`skipped library chart ${chart.directory} (type: library renders nothing by itself; the charts that use it are linted)`);
    return rendering;
  }
  const missing = missingDependencies(chart.directory, metadata.dependencies);
  // A missing dependency that is a chart of this repository (bitnami's common beside the chart
  // that uses it, a file:// path) is taken from here; the rest are left out.
  const local = new Map(
    missing.flatMap((dependency) => {
      const found = localDependency(chart.directory, dependency, options.guard, options.sandbox.limits.allowNetwork);
      return found === undefined ? [] : [[dependency.name, found] as const];
    }),
  );
  const absent = missing.filter((dependency) => !local.has(dependency.name));
  // Where each local dependency's templates are, by the name it renders under.
  const subcharts = new Map(
    missing.flatMap((dependency) => (local.has(dependency.name) ? [[dependency.alias ?? dependency.name, local.get(dependency.name)!] as const] : [])),
  );
  // Without its dependencies, the chart is rendered from a copy that does not ask for the absent ones.
  const directory = missing.length === 0 ? chart.directory : vendoredCopy(chart.directory, absent, local, options.sandbox.scratchDirectory());
  if (local.size > 0) {
    rendering.notices.push(
      `rendered chart ${chart.directory} with ${[...local].map(([name, path]) => `${name} from ${shown(path)}`).join(', ')} (its dependencies are not in charts/; \`helm dependency build ${chart.directory}\` fetches the published versions)`,
    );
  }
  const ciValues = ciValuesFiles(chart.directory);
  const failures: { values: string | undefined; message: string }[] = [];
  // What every rendering of this chart reads, for the cache key (not with the network: what it fetches may change).
  const cache = options.sandbox.limits.allowNetwork ? undefined : options.cache;
  const content = cache === undefined ? [] : [...treeContent(chart.directory), ...[...local.values()].flatMap((path) => treeContent(path))];
  for (const values of [undefined, ...ciValues]) {
    const args = ['template', 'release-name', resolve(directory)];
    for (const file of chart.values ?? []) args.push('--values', file);
    if (values !== undefined) args.push('--values', resolve(values));
    if (chart.explicit) {
      for (const file of options.values) args.push('--values', resolve(file));
      for (const assignment of options.set) args.push('--set', assignment);
    }
    const key =
      cache === undefined
        ? undefined
        : RenderCache.key([
            'helm template 1',
            binaryIdentity(options.helm),
            chart.directory,
            ...content,
            ...[...(chart.values ?? []), ...(values === undefined ? [] : [values]), ...(chart.explicit ? options.values : [])].flatMap((file) => [
              file,
              readFileSync(file),
            ]),
            ...(chart.explicit ? options.set : []),
          ]);
    const cached = key === undefined ? undefined : cache!.get(key);
    const run: SandboxedRun = cached === undefined ? await options.sandbox.run(options.helm, args, process.cwd()) : { ...cached, networkAttempts: [] };
    // A render stopped by a limit, or one that tried the network, says something of this run only.
    if (key !== undefined && cached === undefined && run.stopped === undefined && run.networkAttempts.length === 0) cache!.set(key, run);
    if (run.code !== 0) {
      failures.push({ values, message: renderFailure(run, options.sandbox.limits).replaceAll(resolve(directory), chart.directory) });
      continue;
    }
    rendering.files.push({
      path: `${values ?? chart.directory} (helm template)`,
      text: run.stdout,
      rendered: helmOrigin(chart.directory, values, options.files, options.guard, subcharts),
    });
  }
  if (absent.length > 0) {
    const names = absent.map(describeDependency).join(', ');
    const outcome =
      rendering.files.length > 0
        ? 'its own templates are linted without them'
        : `its own templates cannot be rendered without them either (${failures[0]?.message ?? 'helm failed'})`;
    rendering.problems.push({
      path: chartFile,
      message: `the chart's dependencies are not in ${join(chart.directory, 'charts')}: ${names}; run \`helm dependency build ${chart.directory}\` (it needs the network) to fetch them; ${outcome}`,
    });
    return rendering;
  }
  const defaultsOnly = failures.length === 1 && failures[0]!.values === undefined && rendering.files.length > 0 && ciValues.length > 0;
  if (defaultsOnly) {
    rendering.notices.push(`rendered chart ${chart.directory} with its ci/ values only: with its defaults alone it does not render (${failures[0]!.message})`);
    return rendering;
  }
  for (const failure of failures) {
    const label = failure.values === undefined ? chart.directory : `${chart.directory} with ${failure.values}`;
    rendering.problems.push({ path: chartFile, message: `cannot render the chart (helm template ${label}): ${failure.message}` });
  }
  return rendering;
}

interface ChartDependency {
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
function readChartMetadata(file: string): ChartMetadata {
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
function localDependency(chart: string, dependency: ChartDependency, guard: TreeGuard, allowNetwork: boolean): string | undefined {
  const candidates = [
    ...(dependency.repository?.startsWith('file://') ? [resolve(chart, dependency.repository.slice('file://'.length))] : []),
    join(dirname(resolve(chart)), dependency.name),
  ];
  return candidates.find((candidate) => {
    if (!guard.contains(candidate) || !existsSync(join(candidate, 'Chart.yaml')) || guard.chartProblem(candidate, allowNetwork) !== undefined) return false;
    try {
      return (jsYaml.load(readFileSync(join(candidate, 'Chart.yaml'), 'utf8')) as { name?: unknown } | null)?.name === dependency.name;
    } catch {
      return false;
    }
  });
}

/** Dependencies with neither a directory `charts/<name>` nor an archive `charts/<name>-<version>.tgz`. */
function missingDependencies(directory: string, dependencies: readonly ChartDependency[]): ChartDependency[] {
  const present = new Set<string>();
  for (const entry of filesAndDirectories(join(directory, 'charts'))) {
    if (entry.directory && existsSync(join(directory, 'charts', entry.name, 'Chart.yaml'))) present.add(entry.name);
    const archive = /^(.+?)-\d[^/]*\.tgz$/.exec(entry.name);
    if (!entry.directory && archive) present.add(archive[1]!);
  }
  // file:// dependencies live beside the chart; helm copies them only on `dependency build`, so they count as missing too.
  return dependencies.filter((dependency) => !present.has(dependency.name));
}

function describeDependency(dependency: ChartDependency): string {
  const version = dependency.version === undefined ? '' : ` ${dependency.version}`;
  const from = dependency.repository === undefined || dependency.repository === '' ? '' : ` from ${dependency.repository}`;
  return `${dependency.name}${version}${from}`;
}

/**
 * A copy of the chart whose Chart.yaml (or requirements.yaml) no longer lists the absent
 * dependencies, with the local ones copied into its charts/ (links inside the tree copied as their
 * targets, which the tree guard has checked).
 */
function vendoredCopy(directory: string, absent: readonly ChartDependency[], local: ReadonlyMap<string, string>, scratch: string): string {
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
    writeFileSync(file, jsYaml.dump(parsed));
  }
  for (const [name, path] of local) cpSync(path, join(copy, 'charts', name), { recursive: true, dereference: true });
  for (const lock of ['Chart.lock', 'requirements.lock']) rmSync(join(copy, lock), { force: true });
  return copy;
}

function filesAndDirectories(directory: string): { name: string; directory: boolean }[] {
  try {
    return readdirSync(directory, { withFileTypes: true }).map((entry) => ({ name: entry.name, directory: entry.isDirectory() }));
  } catch {
    return [];
  }
}

/** ci/*-values.yaml, sorted. */
function ciValuesFiles(chart: string): string[] {
  const directory = join(chart, 'ci');
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((name) => /-values\.ya?ml$/.test(name))
    .sort()
    .map((name) => join(directory, name));
}

/**
 * Origins for helm's output, of a chart directory or (root undefined) a stream on stdin: each
 * document's `# Source: <chart>/templates/x.yaml` names the template; the chart's own name is
 * replaced by its directory. The `# Source:` line is text of the input: a path it names that leaves
 * the chart (or, on stdin, the tree being linted) is disregarded — never opened, never pointed at —
 * and the finding keeps its place in the rendered output.
 */
export function helmOrigin(
  root: string | undefined,
  values: string | undefined,
  files: FileCache,
  guard: TreeGuard,
  /** Dependencies rendered from elsewhere in the tree: name → directory. */
  subcharts: ReadonlyMap<string, string> = new Map(),
): RenderedOrigin {
  let sources: { offset: number; path: string }[] | undefined;
  return {
    from: 'helm',
    root,
    values,
    originOf(index: number, value: unknown, source: SourceFile): ResourceOrigin {
      sources ??= [...source.text.matchAll(SOURCE_LINE)].map((match) => ({ offset: match.index, path: match[1]!.trim() }));
      // This document's `# Source:` lines are those after the previous document began; of them,
      // the last that stays inside the chart (a template may write a line of its own).
      const offset = source.documentOffset(index) ?? 0;
      const previous = index === 0 ? -1 : (source.documentOffset(index - 1) ?? -1);
      const own = sources.filter((entry) => entry.offset > previous && entry.offset <= offset);
      // A document without a line of its own continues the one before it.
      const named = own.length > 0 ? own : sources.filter((entry) => entry.offset <= offset).slice(-1);
      const template = named
        .map((entry) => templatePath(root, entry.path, guard, subcharts))
        .filter((path) => path !== undefined)
        .at(-1);
      const locateRendered = (pointer: string) => source.locate(index, pointer);
      const fallback = root === undefined ? source.file : join(root, 'Chart.yaml');
      const absolute = template !== undefined && existsSync(template) ? template : undefined;
      // A template inside a packaged subchart (charts/*.tgz) is not a file: the archive is.
      const packaged = template !== undefined && absolute === undefined && root !== undefined ? packagedTemplate(root, template) : undefined;
      const file = packaged?.archive ?? (template === undefined || (absolute === undefined && root !== undefined) ? fallback : template);
      return {
        file: shown(file),
        documentIndex: index,
        locate: (pointer: string): Position | undefined => {
          // A stream whose `# Source:` is disregarded (or absent) is the file: its own place is the place.
          if (template === undefined && root === undefined) return locateRendered(pointer);
          const text = absolute === undefined ? undefined : files.text(absolute);
          return text === undefined ? undefined : locateInTemplate(text, pointer, value);
        },
        rendered: {
          from: 'helm',
          root,
          values,
          locateRendered,
          ...(packaged ? { inside: packaged.inside } : {}),
          ...(absolute !== undefined && root !== undefined ? { editedIn: (pointer: string) => inNamedTemplate(root, absolute, pointer, value, files) } : {}),
        },
      };
    },
  };
}

/**
 * The named template (`define` in a `_helpers.tpl`, `_pod.tpl` …) that renders what `pointer` names,
 * when it holds more of the path than the template that includes it: a probe written in
 * `_pod.tpl` is edited there, not at the `spec:` above the `include`.
 */
function inNamedTemplate(root: string, template: string, pointer: string, value: unknown, files: FileCache): { file: string; position: Position } | undefined {
  const text = files.text(template);
  const own = text === undefined ? undefined : matchInTemplate(text, pointer, value, false);
  let best: { file: string; match: TemplateMatch } | undefined;
  for (const helper of helperTemplates(root, template)) {
    const helperText = files.text(helper);
    const match = helperText === undefined ? undefined : matchInTemplate(helperText, pointer, value, true);
    if (match !== undefined && match.depth > (best?.match.depth ?? own?.depth ?? 0)) best = { file: helper, match };
  }
  return best === undefined ? undefined : { file: shown(best.file), position: best.match.position };
}

/** The `.tpl` files of the template's chart and of the charts it vendors (a library chart such as bitnami's common). */
function helperTemplates(root: string, template: string): string[] {
  const marker = `${sep}templates${sep}`;
  const chart = template.includes(marker) ? template.slice(0, template.lastIndexOf(marker)) : root;
  const directories = [join(chart, 'templates'), ...subdirectories(join(root, 'charts')).map((sub) => join(sub, 'templates'))];
  return [...new Set(directories)].flatMap((directory) => filesIn(directory).filter((file) => file.endsWith('.tpl')));
}

function subdirectories(directory: string): string[] {
  try {
    return readdirSync(directory, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(directory, entry.name))
      .sort();
  } catch {
    return [];
  }
}

function filesIn(directory: string): string[] {
  try {
    return readdirSync(directory, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(directory, entry.name))
      .sort();
  } catch {
    return [];
  }
}

/** `<root>/charts/sub/templates/x.yaml` of a subchart packaged as `<root>/charts/sub-1.2.3.tgz`: the archive, and the path inside it. */
function packagedTemplate(root: string, template: string): { archive: string; inside: string } | undefined {
  const rel = relative(root, template).split(sep);
  if (rel[0] !== 'charts' || rel.length < 3) return undefined;
  const name = rel[1]!;
  const archive = filesIn(join(root, 'charts')).find((file) => {
    const base = file.slice(file.lastIndexOf(sep) + 1);
    return base === `${name}.tgz` || (base.startsWith(`${name}-`) && /^\d/.test(base.slice(name.length + 1)) && base.endsWith('.tgz'));
  });
  return archive === undefined ? undefined : { archive, inside: rel.slice(1).join('/') };
}

/**
 * `mychart/templates/x.yaml` → `<chart directory>/templates/x.yaml`; for stdin, as written (relative
 * to here). Undefined for a path that would leave the chart or the tree: absolute, `..`, a link out.
 */
function templatePath(root: string | undefined, named: string, guard: TreeGuard, subcharts: ReadonlyMap<string, string>): string | undefined {
  if (isAbsolute(named) || named.includes('\0') || /[\u0000-\u001f]/.test(named)) return undefined;
  const slash = named.indexOf('/');
  const path = root === undefined || slash === -1 ? named : join(root, named.slice(slash + 1));
  // `app/charts/common/templates/x.yaml` of a dependency taken from elsewhere in the tree.
  const vendored = /^[^/]+\/charts\/([^/]+)\/(.+)$/.exec(named);
  if (root !== undefined && vendored && subcharts.has(vendored[1]!) && !existsSync(path)) {
    const candidate = join(subcharts.get(vendored[1]!)!, vendored[2]!);
    if (!relative(subcharts.get(vendored[1]!)!, candidate).startsWith('..') && guard.containsLexically(candidate))
      return existsSync(candidate) && guard.contains(candidate) ? candidate : undefined;
  }
  const within = root === undefined ? process.cwd() : root;
  const rel = relative(resolve(within), resolve(path));
  if (rel.startsWith('..') || isAbsolute(rel)) return undefined;
  if (!guard.containsLexically(path)) return undefined;
  return existsSync(path) && !guard.contains(path) ? undefined : path;
}

function shown(path: string): string {
  const rel = relative(process.cwd(), resolve(path));
  return rel.startsWith('..') ? path : rel;
}
