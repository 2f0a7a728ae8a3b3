// Kustomizations: built with `kubectl kustomize` (or `kustomize build`) through a wrapper that asks
// kustomize to annotate each object with the file that declared it (buildMetadata: originAnnotations).
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFileAtomic } from '../atomic-write.js';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import type { InputErrorKind } from '../../model/input-error-kind.js';
import type { InputFile, InputProblem } from '../read/inputs.js';
import type { ChartUnit, KustomizationUnit } from '../read/discover.js';
import type { FileCache } from '../read/file-cache.js';
import { kustomizeOrigin } from '../origin/kustomize-origin.js';
import { renderFailure, renderFailureKind, type RenderSandbox } from './sandbox.js';
import type { TreeGuard } from '../read/tree-guard.js';
import { shownPath } from '../read/shown-path.js';
import { kustomizeFailureCause } from './kustomize-failure.js';

export interface KustomizeOptions {
  /** kubectl (run as `kubectl kustomize`) or kustomize (run as `kustomize build`). */
  binary: string;
  files: FileCache;
  sandbox: RenderSandbox;
  guard: TreeGuard;
}

export interface KustomizeResult {
  files: InputFile[];
  problems: InputProblem[];
  /** Local resource files to lint as they are, when the kustomization itself cannot be built. */
  unbuilt: string[];
  /** Charts it inflates that are here: rendered as charts of their own. */
  charts: ChartUnit[];
  notices: string[];
}

export async function renderKustomization(unit: KustomizationUnit, options: KustomizeOptions): Promise<KustomizeResult> {
  const tool = basename(options.binary).startsWith('kubectl') ? 'kubectl kustomize' : 'kustomize build';
  const refuse = (kind: InputErrorKind, reason: string, unbuilt: string[] = []): KustomizeResult => ({
    files: [],
    problems: [{ path: unit.file, kind, message: `cannot build the kustomization (${tool} ${unit.directory}): ${reason}` }],
    unbuilt,
    charts: [],
    notices: [],
  });
  for (const reference of unit.references) {
    const problem = options.guard.referenceProblem(reference.from, reference.path);
    if (problem !== undefined) return refuse('refused', problem);
  }
  if (unit.helmCharts.length > 0) return inflatedCharts(unit, options.guard);
  if (unit.remote.length > 0 && !options.sandbox.limits.allowNetwork) {
    // Fail fast, without starting kustomize, and lint what is here.
    const local = unit.resources.filter((file) => options.guard.contains(file));
    return refuse(
      'network',
      `it refers to ${unit.remote.slice(0, 3).join(', ')}${unit.remote.length > 3 ? ', …' : ''}: the network is off while rendering (--allow-network turns it on)${
        local.length > 0 ? `; its ${local.length} local resource ${local.length === 1 ? 'file is' : 'files are'} linted as written` : ''
      }; vendor the remote bases into the repository, or build it in a trusted step and lint the output: ${tool} ${unit.directory} | probe-lint -`,
      local,
    );
  }
  // The wrapper lives in a temporary directory and refers to the kustomization by a relative path
  // (kustomize refuses absolute ones); it changes nothing but the origin annotations.
  const wrapper = mkdtempSync(join(tmpdir(), 'probe-lint-kustomize-'));
  try {
    writeFileAtomic(
      join(wrapper, 'kustomization.yaml'),
      Buffer.from(`resources:\n  - ${JSON.stringify(relative(wrapper, resolve(unit.directory)))}\nbuildMetadata: [originAnnotations]\n`),
      { mode: 0o600 },
    );
    const run = await options.sandbox.run(options.binary, tool === 'kubectl kustomize' ? ['kustomize', wrapper] : ['build', wrapper], process.cwd());
    // kustomize names the kustomization by the wrapper's relative path to it: the user knows it by its directory.
    const fromWrapper = relative(wrapper, resolve(unit.directory));
    if (run.code !== 0)
      return refuse(
        renderFailureKind(run),
        kustomizeFailureCause(
          renderFailure(run, options.sandbox.limits).replaceAll(wrapper, unit.directory).replaceAll(fromWrapper, unit.directory),
          unit.directory,
        ),
      );
    return {
      files: [{ path: `${unit.directory} (kustomize build)`, text: run.stdout, rendered: kustomizeOrigin(unit, wrapper, options.files, options.guard) }],
      problems: [],
      unbuilt: [],
      charts: [],
      notices: [],
    };
  } finally {
    rmSync(wrapper, { recursive: true, force: true });
  }
}

/**
 * A kustomization that inflates Helm charts (`helmCharts:`) needs kustomize's --enable-helm, which
 * runs helm as kustomize pleases (and kubectl's kustomize cannot drive Helm 4). Instead its local
 * charts are rendered as charts of their own, with their values files, under the same sandbox, so
 * findings point at the charts' templates; its local resource files are linted as written. Charts
 * from a repository are not fetched.
 */
function inflatedCharts(unit: KustomizationUnit, guard: TreeGuard): KustomizeResult {
  const local = unit.helmCharts.filter((chart) => chart.directory !== undefined && guard.contains(chart.directory));
  const remote = unit.helmCharts.filter((chart) => !local.includes(chart));
  const resources = unit.resources.filter((file) => guard.contains(file));
  const problems: InputProblem[] = remote.map((chart) => ({
    path: unit.file,
    kind: 'network',
    message: `cannot inflate the chart ${chart.name}${chart.repo ? ` from ${chart.repo}` : ''} (helmCharts:): it is not in the kustomization's chartHome; vendor it there (helm pull ${chart.name} --untar), or lint the built output: kustomize build --enable-helm ${unit.directory} | probe-lint -`,
  }));
  const notices =
    local.length === 0
      ? []
      : [
          `kustomization ${unit.directory} inflates Helm charts (helmCharts:): ${local.map((chart) => shownPath(chart.directory!)).join(', ')} linted as charts with their values, and its ${resources.length} local resource ${resources.length === 1 ? 'file' : 'files'} as written; patches over the charts' output are not applied (kustomize build --enable-helm ${unit.directory} | probe-lint - lints the whole)`,
        ];
  return {
    files: [],
    problems,
    unbuilt: resources,
    charts: local.map((chart) => ({
      kind: 'chart',
      directory: shownPath(chart.directory!),
      explicit: false,
      values: chart.values.filter((file) => guard.contains(file)),
    })),
    notices,
  };
}
