// The inputs of a lint run: plain manifests read as they are, charts rendered with helm,
// kustomizations built with kustomize, and a rendered stream on stdin mapped back to its templates.
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { readPlainInputs, type InputFile, type InputProblem, type ReadResult } from './read/inputs.js';
import type { ProgressListener } from '../model/progress.js';
import type { PathExclusion } from './read/excluded-paths.js';
import { discover, type ChartUnit } from './read/discover.js';
import { FileCache } from './read/file-cache.js';
import { findOnPath } from './render/run-tool.js';
import type { SandboxLimits } from './render/sandbox.js';
import { shownPath } from './read/shown-path.js';
import { TreeBounds, treeRootOf } from './read/tree-root.js';
// Types only: the rendering code itself loads only when there is something to render (below).
import type * as Rendering from './render/rendering.js';

export interface RenderOptions {
  helm: string | undefined;
  kustomize: string | undefined;
  values: readonly string[];
  set: readonly string[];
  /** False with --no-render: charts and kustomizations are skipped with a notice each. */
  enabled: boolean;
  /** The sandbox's limits (network, time, output); the defaults when absent. */
  limits?: Partial<SandboxLimits>;
  /** False: render everything again, keeping nothing between runs (--no-render-cache). */
  cache?: boolean;
}

export interface ReadOptions {
  readStdin: () => string | Buffer;
  env: Readonly<Record<string, string | undefined>>;
  render: RenderOptions;
  /** Paths never linted (the config's exclude, --exclude). */
  exclusion?: PathExclusion;
  /** The tree a chart, a kustomization or a linked manifest may read (--root); by default each input's own. */
  root?: string;
  /** Files named that hold no object are passed over, as in a directory walk (--only-manifests). */
  onlyManifests?: boolean;
  /** Told as each chart and kustomization is rendered. */
  progress?: ProgressListener;
}

const HELM_HELP = 'install Helm (https://helm.sh/docs/intro/install/) or give --helm PATH; --no-render skips charts';
const KUSTOMIZE_HELP = 'install kubectl (it includes kustomize) or kustomize, or give --kustomize PATH; --no-render skips kustomizations';
export async function readInputs(paths: readonly string[], options: ReadOptions): Promise<ReadResult> {
  const found = discover(paths, options.exclusion);
  // What a linked manifest, a chart, a kustomization or a `# Source:` line may reach: the trees the inputs live in.
  const roots = paths.map((path) => treeRootOf(path === '-' ? '.' : path, options.root));
  const plain = readPlainInputs(found.files, options.readStdin, {
    regularFiles: found.regularFiles,
    bounds: new TreeBounds(roots),
    named: options.onlyManifests === true ? undefined : found.named,
  });
  const files: InputFile[] = [];
  const problems: InputProblem[] = [...found.problems, ...plain.problems];
  const notices: string[] = [...found.notices, ...plain.notices];
  const cache = new FileCache();
  const renderingNeeded = options.render.enabled && (found.charts.length > 0 || found.kustomizations.length > 0);
  // A stream on stdin that helm rendered: mapped back to its templates by its `# Source:` lines.
  const renderedStreams = new Set(plain.files.filter((file) => file.path === '-' && /^# Source: /m.test(file.text)));
  const renderedStdin = renderedStreams.size > 0;
  // The rendering code (sandbox, cache, guard, helm and kustomize) loads only when there is something
  // to render or map: a plain lint, as in a pre-commit hook, starts without it.
  const render = renderingNeeded || renderedStdin ? await import('./render/rendering.js') : undefined;
  const guard = render === undefined ? undefined : new render.TreeGuard(roots);
  for (const file of plain.files) {
    if (renderedStreams.has(file) && render && guard) files.push({ ...file, rendered: render.helmOrigin(undefined, undefined, cache, guard) });
    else files.push(file);
  }

  if (!options.render.enabled) {
    for (const chart of found.charts) notices.push(`skipped chart ${chart.directory} (--no-render)`);
    for (const unit of found.kustomizations) notices.push(`skipped kustomization ${unit.directory} (--no-render)`);
    return { files, problems, notices };
  }
  if (render === undefined || guard === undefined || !renderingNeeded) return { files, problems, notices };
  await renderFound(render, found, options, { guard, cache, bounds: new TreeBounds(roots) }, { files, problems, notices });
  return { files, problems, notices };
}

/**
 * Renders the charts and kustomizations found, in the sandbox, into `out`: charts side by side, then
 * kustomizations, then the charts those inflate that were not rendered on their own.
 */
async function renderFound(
  render: typeof Rendering,
  found: ReturnType<typeof discover>,
  options: ReadOptions,
  reach: { guard: Rendering.TreeGuard; cache: FileCache; bounds: TreeBounds },
  out: ReadResult,
): Promise<void> {
  const { files, problems, notices } = out;
  const { guard, cache } = reach;
  const absorb = (part: { files: InputFile[]; problems: InputProblem[]; notices?: string[] }) => {
    files.push(...part.files);
    problems.push(...part.problems);
    notices.push(...(part.notices ?? []));
  };
  const { RenderSandbox, DEFAULT_SANDBOX_LIMITS, RenderCache, renderChart, renderKustomization } = render;
  // Every chart and kustomization found is a step; charts a kustomization inflates add theirs as they come.
  const rendering = { done: 0, total: found.charts.length + found.kustomizations.length };
  const step = (current: string, finished: boolean) => {
    if (finished) rendering.done++;
    options.progress?.({ task: 'rendering {count} charts and kustomizations', done: rendering.done, total: rendering.total, current });
  };
  const sandbox = new RenderSandbox({ ...DEFAULT_SANDBOX_LIMITS, ...options.render.limits });
  try {
    const renderCache = options.render.cache === false ? undefined : RenderCache.open(options.env);
    const renderCharts = async (charts: readonly ChartUnit[]) => {
      const helm = options.render.helm ?? findOnPath(['helm'], options.env);
      if (helm === undefined) {
        for (const chart of charts)
          problems.push({ path: chart.directory, kind: 'render', message: `cannot render the chart: helm is not on PATH (${HELM_HELP})` });
        return;
      }
      // Charts render side by side, up to the cores; their results are taken in the order given.
      const renderings = await mapBounded(charts, renderParallelism(), async (chart) => {
        step(chart.directory, false);
        const rendered = await renderChart(chart, {
          helm,
          values: options.render.values,
          set: options.render.set,
          files: cache,
          sandbox,
          guard,
          cache: renderCache,
        });
        step(chart.directory, true);
        return rendered;
      });
      for (const rendered of renderings) absorb(rendered);
    };
    // A chart a kustomization inflates is rendered through it, with its values.
    const inflated = new Set(
      found.kustomizations.flatMap((unit) => unit.helmCharts.flatMap((chart) => (chart.directory === undefined ? [] : [chart.directory]))),
    );
    await renderCharts(found.charts.filter((chart) => !inflated.has(resolve(chart.directory))));
    if (found.kustomizations.length > 0) {
      const binary = options.render.kustomize ?? findOnPath(['kubectl', 'kustomize'], options.env);
      const rendered = new Set(found.charts.map((chart) => resolve(chart.directory)).filter((directory) => !inflated.has(directory)));
      if (binary === undefined) {
        for (const unit of found.kustomizations)
          problems.push({
            path: unit.file,
            kind: 'render',
            message: `cannot build the kustomization: neither kubectl nor kustomize is on PATH (${KUSTOMIZE_HELP})`,
          });
      } else {
        const builds = await mapBounded(found.kustomizations, renderParallelism(), async (unit) => {
          step(unit.directory, false);
          const built = await renderKustomization(unit, { binary, files: cache, sandbox, guard });
          step(unit.directory, true);
          return built;
        });
        const charts: ChartUnit[] = [];
        const linted = new Set(files.filter((file) => file.rendered === undefined && file.path !== '-').map((file) => resolve(file.path)));
        for (const built of builds) {
          absorb(built);
          // A file that several kustomizations fall back to (or that was given itself) is linted once.
          const unread = built.unbuilt.filter((file) => !linted.has(resolve(file)));
          for (const file of unread) linted.add(resolve(file));
          if (unread.length > 0) absorb(readPlainInputs(unread.map(shownPath), options.readStdin, { bounds: reach.bounds }));
          for (const chart of built.charts) {
            if (rendered.has(resolve(chart.directory))) continue;
            rendered.add(resolve(chart.directory));
            charts.push(chart);
            rendering.total++;
          }
        }
        await renderCharts(charts);
      }
    }
  } finally {
    sandbox.close();
  }
}

/** Renders at once: one per core (a render is mostly one helm or kustomize process), at most 8; PROBE_LINT_RENDER_JOBS sets it (the benchmark's baseline is 1). */
function renderParallelism(): number {
  const asked = Number(process.env.PROBE_LINT_RENDER_JOBS);
  return Math.max(1, Math.min(8, Number.isInteger(asked) && asked > 0 ? asked : availableParallelism()));
}

/** `work` over `items` with at most `limit` in flight; the results in the order of the items. */
async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
