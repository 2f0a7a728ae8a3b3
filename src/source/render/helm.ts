// Charts: rendered with `helm template`, each document mapped back to its template by the
// `# Source:` line helm writes above it.
import { existsSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Position } from '../../model/position.js';
import type { ResourceOrigin } from '../../model/resource.js';
import type { InputFile, InputProblem } from '../inputs.js';
import type { RenderedOrigin } from '../rendered.js';
import type { SourceFile } from '../source-file.js';
import type { ChartUnit } from './discover.js';
import { locateInTemplate, type FileCache } from './locate-source.js';
import { renderFailure, type RenderSandbox } from './sandbox.js';
import type { TreeGuard } from './tree-guard.js';

const SOURCE_LINE = /^# Source: (.+)$/gm;

export interface HelmOptions {
  helm: string;
  values: readonly string[];
  set: readonly string[];
  files: FileCache;
  sandbox: RenderSandbox;
  guard: TreeGuard;
}

/**
 * Renders a chart with its values.yaml (plus --values/--set when the chart was given on the
 * command line), and once more per `ci/*-values.yaml` (the chart-testing convention). A missing
 * dependency or a template error is an input problem that names the chart and quotes helm.
 */
export async function renderChart(chart: ChartUnit, options: HelmOptions): Promise<{ files: InputFile[]; problems: InputProblem[] }> {
  const variants: (string | undefined)[] = [undefined, ...ciValuesFiles(chart.directory)];
  const files: InputFile[] = [];
  const problems: InputProblem[] = [];
  const refused = options.guard.chartProblem(chart.directory, options.sandbox.limits.allowNetwork);
  if (refused !== undefined) {
    return { files, problems: [{ path: join(chart.directory, 'Chart.yaml'), message: `cannot render the chart ${chart.directory}: ${refused}` }] };
  }
  for (const values of variants) {
    const args = ['template', 'release-name', resolve(chart.directory)];
    if (values !== undefined) args.push('--values', resolve(values));
    if (chart.explicit) {
      for (const file of options.values) args.push('--values', resolve(file));
      for (const assignment of options.set) args.push('--set', assignment);
    }
    const run = await options.sandbox.run(options.helm, args, process.cwd());
    const label = values === undefined ? chart.directory : `${chart.directory} with ${values}`;
    if (run.code !== 0) {
      problems.push({
        path: join(chart.directory, 'Chart.yaml'),
        message: `cannot render the chart (helm template ${label}): ${renderFailure(run, options.sandbox.limits)}`,
      });
      continue;
    }
    files.push({
      path: `${values ?? chart.directory} (helm template)`,
      text: run.stdout,
      rendered: helmOrigin(chart.directory, values, options.files, options.guard),
    });
  }
  return { files, problems };
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
export function helmOrigin(root: string | undefined, values: string | undefined, files: FileCache, guard: TreeGuard): RenderedOrigin {
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
        .map((entry) => templatePath(root, entry.path, guard))
        .filter((path) => path !== undefined)
        .at(-1);
      const locateRendered = (pointer: string) => source.locate(index, pointer);
      const fallback = root === undefined ? source.file : join(root, 'Chart.yaml');
      const absolute = template !== undefined && existsSync(template) ? template : undefined;
      return {
        file: template === undefined ? fallback : shown(template),
        documentIndex: index,
        locate: (pointer: string): Position | undefined => {
          // A stream whose `# Source:` is disregarded (or absent) is the file: its own place is the place.
          if (template === undefined && root === undefined) return locateRendered(pointer);
          const text = absolute === undefined ? undefined : files.text(absolute);
          return text === undefined ? undefined : locateInTemplate(text, pointer, value);
        },
        rendered: { from: 'helm', root, values, locateRendered },
      };
    },
  };
}

/**
 * `mychart/templates/x.yaml` → `<chart directory>/templates/x.yaml`; for stdin, as written (relative
 * to here). Undefined for a path that would leave the chart or the tree: absolute, `..`, a link out.
 */
function templatePath(root: string | undefined, named: string, guard: TreeGuard): string | undefined {
  if (isAbsolute(named) || named.includes('\0') || /[\u0000-\u001f]/.test(named)) return undefined;
  const slash = named.indexOf('/');
  const path = root === undefined || slash === -1 ? named : join(root, named.slice(slash + 1));
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
