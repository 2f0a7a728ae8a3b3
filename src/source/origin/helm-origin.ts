// From helm's output back to what the user edits: each document's `# Source:` line names its
// template (inside the chart, or it is disregarded); a probe may be written in a named template
// (`.tpl`), and a template of a packaged subchart lives in its archive.
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Position } from '../../model/position.js';
import type { ResourceOrigin } from '../../model/resource.js';
import type { RenderedOrigin } from '../parse/rendered.js';
import type { SourceFile } from '../parse/source-file.js';
import { bodyText, DefineIndex } from './helm-defines.js';
import type { FileCache } from '../read/file-cache.js';
import { locateInTemplate, matchInTemplate, type TemplateMatch } from './locate-template.js';
import { pathsIn } from '../read/list-directory.js';
import { deadLines } from './template-branches.js';
import { subchartValues } from './chart-values.js';
import type { TreeGuard } from '../read/tree-guard.js';
import { shownPath } from '../read/shown-path.js';

const SOURCE_LINE = /^# Source: (.+)$/gm;

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
  /** The values this rendering saw, when they can be known: a finding goes to a template branch they render. */
  valuesOf: () => unknown = () => undefined,
): RenderedOrigin {
  let sources: { offset: number; path: string }[] | undefined;
  let seen: { value: unknown } | undefined;
  let defines: DefineIndex | undefined;
  const defineIndex = () => (defines ??= new DefineIndex([...(root === undefined ? [] : [root]), ...subcharts.values()], files));
  const deadByTemplate = new Map<string, ReadonlySet<number> | undefined>();
  /**
   * Lines of a template that this rendering's values rule out: of the chart's own templates and of
   * its direct subcharts' (their values under their name, with the parent's globals); none for
   * helpers, whose dot is not known.
   */
  const deadLinesOf = (template: string, subchart: string | undefined, text: string): ReadonlySet<number> | undefined => {
    if (root === undefined) return undefined;
    const key = `${subchart ?? ''}\0${template}`;
    if (deadByTemplate.has(key)) return deadByTemplate.get(key);
    seen ??= { value: valuesOf() };
    const values = seen.value === undefined ? undefined : valuesForTemplate(root, resolve(template), subchart, seen.value as Record<string, unknown>, files);
    const dead = values === undefined ? undefined : deadLines(text, values);
    deadByTemplate.set(key, dead);
    return dead;
  };
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
      const chosen = named
        .map((entry) => ({ path: templatePath(root, entry.path, guard, subcharts), named: entry.path }))
        .filter((entry) => entry.path !== undefined)
        .at(-1);
      const template = chosen?.path;
      // `app/charts/<name>/templates/…`: the subchart it renders as, whose values it saw.
      const subchart = chosen === undefined ? undefined : /^[^/]+\/charts\/([^/]+)\/templates\//.exec(chosen.named)?.[1];
      const locateRendered = (pointer: string) => source.locate(index, pointer);
      const fallback = root === undefined ? source.file : join(root, 'Chart.yaml');
      const absolute = template !== undefined && existsSync(template) ? template : undefined;
      // A template inside a packaged subchart (charts/*.tgz) is not a file: the archive is.
      const packaged = template !== undefined && absolute === undefined && root !== undefined ? packagedTemplate(root, template) : undefined;
      const file = packaged?.archive ?? (template === undefined || (absolute === undefined && root !== undefined) ? fallback : template);
      return {
        file: shownPath(file),
        documentIndex: index,
        locate: (pointer: string): Position | undefined => {
          // A stream whose `# Source:` is disregarded (or absent) is the file: its own place is the place.
          if (template === undefined && root === undefined) return locateRendered(pointer);
          const text = absolute === undefined ? undefined : files.text(absolute);
          return text === undefined ? undefined : locateInTemplate(text, pointer, value, deadLinesOf(absolute!, subchart, text));
        },
        rendered: {
          from: 'helm',
          root,
          values,
          locateRendered,
          ...(packaged ? { inside: packaged.inside } : {}),
          ...(absolute !== undefined && root !== undefined
            ? { editedIn: (pointer: string) => inNamedTemplate(defineIndex(), absolute, pointer, value, files) }
            : {}),
        },
      };
    },
  };
}

/**
 * The named template (`define` in a `_helpers.tpl`, `_pod.yaml`, `memcached/_statefulset.tpl` …)
 * that renders what `pointer` names, among those the template includes (transitively), when it holds
 * more of the path than the template itself: a probe written in `_pod.tpl` is edited there, not at
 * the `spec:` above the `include`, which stays the place only when no definition holds more.
 */
function inNamedTemplate(
  index: DefineIndex,
  template: string,
  pointer: string,
  value: unknown,
  files: FileCache,
): { file: string; position: Position } | undefined {
  const text = files.text(template);
  if (text === undefined) return undefined;
  const own = matchInTemplate(text, pointer, value, false);
  let best: { file: string; match: TemplateMatch } | undefined;
  for (const define of index.reachedFrom(text, files)) {
    const body = bodyText(define, files);
    const match = body === undefined ? undefined : matchInTemplate(body, pointer, value, true);
    if (match !== undefined && match.depth > (best?.match.depth ?? own?.depth ?? 0)) best = { file: define.file, match };
  }
  return best === undefined ? undefined : { file: shownPath(best.file), position: best.match.position };
}

/** The chart directory a template file lies in (the part before its last `/templates/`). */
function chartOfTemplate(template: string): string | undefined {
  const marker = `${sep}templates${sep}`;
  return template.includes(marker) ? template.slice(0, template.lastIndexOf(marker)) : undefined;
}

/**
 * The values a template saw: the chart's for its own templates; for a direct subchart's (rendered
 * as `subchart`, its name or alias), its own under the parent's for that name; undefined otherwise.
 */
function valuesForTemplate(
  root: string,
  template: string,
  subchart: string | undefined,
  values: Record<string, unknown>,
  files: FileCache,
): Record<string, unknown> | undefined {
  const chart = chartOfTemplate(template);
  if (chart === undefined) return undefined;
  if (subchart === undefined) return chart === resolve(root) ? values : undefined;
  const own = (key: string) => (Object.hasOwn(values, key) ? values[key] : undefined);
  return subchartValues(chart, own(subchart), own('global'), files);
}

/** `<root>/charts/sub/templates/x.yaml` of a subchart packaged as `<root>/charts/sub-1.2.3.tgz`: the archive, and the path inside it. */
function packagedTemplate(root: string, template: string): { archive: string; inside: string } | undefined {
  const rel = relative(root, template).split(sep);
  if (rel[0] !== 'charts' || rel.length < 3) return undefined;
  const name = rel[1]!;
  const archive = pathsIn(join(root, 'charts'), 'files').find((file) => {
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
