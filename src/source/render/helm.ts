// Charts: rendered with `helm template`, each document mapped back to its template by the
// `# Source:` line helm writes above it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { InputFile, InputProblem } from '../read/inputs.js';
import { describeDependency, localDependency, missingDependencies, readChartMetadata, vendoredCopy, type ChartDependency } from './chart-dependencies.js';
import type { ChartUnit } from '../read/discover.js';
import { renderedValues } from '../origin/chart-values.js';
import { helmOrigin } from '../origin/helm-origin.js';
import { shownPath } from '../read/shown-path.js';
import type { FileCache } from '../read/file-cache.js';
import { binaryIdentity, RenderCache, treeContent } from './render-cache.js';
import { renderFailure, renderFailureKind, type RenderSandbox, type SandboxedRun } from './sandbox.js';
import type { TreeGuard } from '../read/tree-guard.js';

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
  if (refused !== undefined && refused.schemaOnly !== true) {
    rendering.problems.push({ path: chartFile, kind: refused.kind, message: `cannot render the chart ${chart.directory}: ${refused.message}` });
    return rendering;
  }
  // A schema the network would complete is not read at all: the values go unchecked, and the user is told.
  const skipSchema = refused !== undefined;
  if (skipSchema)
    rendering.notices.push(`rendered chart ${chart.directory} without its values schema: ${refused.message}; the values were not checked against it`);
  const metadata = readChartMetadata(chartFile);
  if (metadata.type === 'library') {
    rendering.notices.push(`skipped library chart ${chart.directory} (type: library renders nothing by itself; the charts that use it are linted)`);
    return rendering;
  }
  const { missing, local, absent, subcharts } = dependenciesOf(chart.directory, metadata.dependencies, options);
  // Without its dependencies, the chart is rendered from a copy that does not ask for the absent ones.
  const directory = missing.length === 0 ? chart.directory : vendoredCopy(chart.directory, absent, local, options.sandbox.scratchDirectory());
  if (local.size > 0) {
    rendering.notices.push(
      `rendered chart ${chart.directory} with ${[...local].map(([name, path]) => `${name} from ${shownPath(path)}`).join(', ')} (its dependencies are not in charts/; \`helm dependency build ${chart.directory}\` fetches the published versions)`,
    );
  }
  const ciValues = ciValuesFiles(chart.directory);
  const failures: { values: string | undefined; kind: 'render' | 'network' | 'limit'; message: string }[] = [];
  // What every rendering of this chart reads, for the cache key (not with the network: what it fetches may change).
  const cache = options.sandbox.limits.allowNetwork ? undefined : options.cache;
  const content = cache === undefined ? [] : [...treeContent(chart.directory), ...[...local.values()].flatMap((path) => treeContent(path))];
  const renderWith = async (values: string | undefined) => {
    // The values files of this rendering, in helm's order (later wins): the chart's own, the ci/ or side file, then --values.
    const files = [...(chart.values ?? []), ...(values === undefined ? [] : [values]), ...(chart.explicit ? options.values : [])];
    const sets = chart.explicit ? options.set : [];
    const args = [
      'template',
      'release-name',
      resolve(directory),
      ...files.flatMap((file) => ['--values', resolve(file)]),
      ...sets.flatMap((set) => ['--set', set]),
      ...(skipSchema ? ['--skip-schema-validation'] : []),
    ];
    const key =
      cache === undefined
        ? undefined
        : RenderCache.key([
            'helm template 1',
            binaryIdentity(options.helm),
            chart.directory,
            ...content,
            ...files.flatMap((file) => [file, readFileSync(file)]),
            ...sets,
          ]);
    const cached = key === undefined ? undefined : cache!.get(key);
    const run: SandboxedRun = cached === undefined ? await options.sandbox.run(options.helm, args, process.cwd()) : { ...cached, networkAttempts: [] };
    // A render stopped by a limit, or one that tried the network, says something of this run only.
    if (key !== undefined && cached === undefined && run.stopped === undefined && run.networkAttempts.length === 0) cache!.set(key, run);
    if (run.code !== 0) {
      failures.push({
        values,
        kind: renderFailureKind(run),
        message: renderFailure(run, options.sandbox.limits).replaceAll(resolve(directory), chart.directory),
      });
      return;
    }
    rendering.files.push({
      path: `${values ?? chart.directory} (helm template)`,
      text: run.stdout,
      // --set values are not read back (they are not in a file a finding could point at).
      rendered: helmOrigin(chart.directory, values, options.files, options.guard, subcharts, () =>
        sets.length > 0 ? undefined : renderedValues(chart.directory, files, options.files),
      ),
    });
  };
  for (const values of [undefined, ...ciValues]) await renderWith(values);
  // A chart with no ci/ values whose defaults do not render (values.yaml left empty on purpose) is
  // rendered as its README asks, with the values files beside values.yaml (values-native.yaml…).
  const besides = rendering.files.length === 0 && ciValues.length === 0 && failures.length > 0 ? sideValuesFiles(chart.directory) : [];
  for (const values of besides) await renderWith(values);
  if (besides.length > 0 && rendering.files.length > 0) {
    const [defaults, ...rest] = failures;
    rendering.notices.push(
      `rendered chart ${chart.directory} with ${besides
        .filter((file) => !rest.some((failure) => failure.values === file))
        .map(shownPath)
        .join(', ')}: with its defaults alone it does not render (${defaults!.message})`,
    );
    failures.splice(0, 1);
  }
  if (absent.length > 0) {
    rendering.problems.push({
      path: chartFile,
      kind: 'network',
      message: missingDependencyMessage(chart.directory, absent, failures, rendering.files.length > 0),
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
    rendering.problems.push({ path: chartFile, kind: failure.kind, message: `cannot render the chart (helm template ${label}): ${failure.message}` });
  }
  return rendering;
}

/** The one problem of a chart whose dependencies are missing: which, how to fetch them, and what was linted without them. */
function missingDependencyMessage(
  directory: string,
  absent: readonly ChartDependency[],
  failures: readonly { values: string | undefined; message: string }[],
  rendered: boolean,
): string {
  // A rendering that fails without them is named, with helm's reason: none is dropped unsaid.
  const dropped = failures.map((failure) => `with ${failure.values ?? 'its defaults'}: ${failure.message}`).join('; ');
  const outcome = !rendered
    ? `its own templates cannot be rendered without them either (${failures[0]?.message ?? 'helm failed'})`
    : failures.length === 0
      ? 'its own templates are linted without them'
      : `its own templates are linted without them where they render; not rendered ${dropped}`;
  // A file:// dependency that leads to no chart here is the repository's to fix: the network would not bring it.
  const broken = absent.filter((dependency) => dependency.repository?.startsWith('file://'));
  const fetchable = absent.filter((dependency) => !broken.includes(dependency));
  const causes = [
    ...(fetchable.length > 0
      ? [
          `the chart's dependencies are not in ${join(directory, 'charts')}: ${fetchable.map(describeDependency).join(', ')}; run \`helm dependency build ${directory}\` (it needs the network) to fetch them`,
        ]
      : []),
    ...(broken.length > 0
      ? [
          `${broken.map(describeDependency).join(', ')} ${broken.length === 1 ? 'leads' : 'lead'} to no chart in the tree being linted (the path is relative to ${directory}; helm dependency build fails on it too)`,
        ]
      : []),
  ];
  return `${causes.join('; ')}; ${outcome}`;
}

/**
 * The chart's dependencies missing from charts/, and of those the charts of this repository (bitnami's
 * common beside the chart that uses it, a file:// path), taken from here; the rest are absent.
 */
function dependenciesOf(directory: string, declared: readonly ChartDependency[], options: HelmOptions) {
  const missing = missingDependencies(directory, declared);
  const local = new Map(
    missing.flatMap((dependency) => {
      const found = localDependency(directory, dependency, options.guard, options.sandbox.limits.allowNetwork);
      return found === undefined ? [] : [[dependency.name, found] as const];
    }),
  );
  const absent = missing.filter((dependency) => !local.has(dependency.name));
  // Where each local dependency's templates are, by the name it renders under.
  // By alias and by name: the copy holds each chart once, under its name, and helm may render it by either.
  const subcharts = new Map(
    missing.flatMap((dependency) =>
      local.has(dependency.name)
        ? [dependency.alias, dependency.name].flatMap((name) => (name === undefined ? [] : [[name, local.get(dependency.name)!] as const]))
        : [],
    ),
  );
  return { missing, local, absent, subcharts };
}

/** values-*.yaml and *-values.yaml beside the chart's values.yaml, sorted. */
function sideValuesFiles(chart: string): string[] {
  return readdirSync(chart)
    .filter((name) => /^values-.+\.ya?ml$|^.+-values\.ya?ml$/.test(name))
    .sort()
    .map((name) => join(chart, name));
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
