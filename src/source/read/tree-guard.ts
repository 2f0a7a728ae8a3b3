// What a chart or kustomization may read: files inside the tree being linted (the repository that
// holds the inputs), nothing else. helm follows symbolic links when it loads a chart, and kustomize
// checks only the directory part of a path, so a link `templates/x.yaml -> /proc/self/environ` would
// hand the CI job's environment to the chart. Links and references are checked here, before either
// tool runs, and a chart or kustomization that reaches outside is refused as a whole.
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { shownPath } from './shown-path.js';
import { TREE_HELP, TreeBounds } from './tree-root.js';

/** A chart may not be larger than this in all (helm reads every file of it into memory). */
const MAX_CHART_BYTES = 256 * 1024 * 1024;
/** Entries walked per chart before giving up: a chart is tens of files, a runaway tree is not one. */
const MAX_CHART_ENTRIES = 20_000;

/** Why a chart may not be rendered as it is, and what kind of input error that is. */
export interface ChartRefusal {
  kind: 'read' | 'refused' | 'limit' | 'network';
  message: string;
  /**
   * The only thing wrong is a schema that refers to a URL (network off): helm renders the chart
   * with schema validation skipped, which fetches nothing, and a notice says so.
   */
  schemaOnly?: true;
}

export class TreeGuard extends TreeBounds {
  /**
   * Why the chart may not be rendered, or undefined: a link that leaves the tree or is broken, a
   * special file (a FIFO would hang helm), too many or too large files, a schema that reads files,
   * or (without network) a schema that refers to a URL (schemaOnly when it is all there is).
   */
  chartProblem(directory: string, allowNetwork: boolean): ChartRefusal | undefined {
    let entries = 0;
    let bytes = 0;
    let remoteSchema: ChartRefusal | undefined;
    const refused = (message: string, kind: ChartRefusal['kind'] = 'refused'): ChartRefusal => ({ kind, message });
    // The real directories on the way down: helm follows links, so a link back to one of them is a loop it never leaves.
    const walk = (folder: string, ancestors: ReadonlySet<string>): ChartRefusal | undefined => {
      let names: string[];
      try {
        names = readdirSync(folder).sort();
      } catch (error) {
        return refused(`cannot read ${shownPath(folder)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 'read');
      }
      for (const name of names) {
        if (++entries > MAX_CHART_ENTRIES) return refused(`it holds more than ${MAX_CHART_ENTRIES} files`, 'limit');
        const path = join(folder, name);
        const link = lstatSync(path);
        let stats = link;
        if (link.isSymbolicLink()) {
          const target = safeRealpath(path);
          if (target === undefined) return refused(`${shownPath(path)} is a broken symbolic link`, 'read');
          if (!this.inside(target))
            return refused(
              `${shownPath(path)} is a symbolic link to ${shownPath(target)}, outside the tree being linted (${TREE_HELP}); a chart may only read its own files`,
            );
          stats = statSync(target);
        }
        if (stats.isDirectory()) {
          const real = safeRealpath(path) ?? path;
          if (ancestors.has(real))
            return refused(`${shownPath(path)} is a symbolic link back to ${shownPath(real)}, a loop that helm would follow without end; remove the link`);
          // A linked directory is read where it leads, as helm reads it.
          const problem = walk(path, new Set([...ancestors, real]));
          if (problem !== undefined) return problem;
        } else if (!stats.isFile()) {
          return refused(`${shownPath(path)} is not a regular file (a FIFO, socket or device)`);
        } else {
          bytes += stats.size;
          if (bytes > MAX_CHART_BYTES) return refused(`its files add up to more than ${MAX_CHART_BYTES / 1024 / 1024} MiB`, 'limit');
          const problem =
            name === 'values.schema.json'
              ? schemaReferenceProblem(shownPath(path), readText(path), allowNetwork)
              : /\.tgz$/.test(name) && basename(folder) === 'charts'
                ? packagedChartProblem(path, allowNetwork)
                : undefined;
          // A remote schema is kept while the rest is walked: anything else wrong wins over it.
          if (problem?.kind === 'network') remoteSchema ??= { ...problem, schemaOnly: true };
          else if (problem !== undefined) return problem;
        }
      }
      return undefined;
    };
    return walk(directory, new Set([safeRealpath(directory) ?? resolve(directory)])) ?? remoteSchema;
  }

  /** Why a kustomization's file reference may not be read, or undefined. */
  referenceProblem(from: string, reference: string): string | undefined {
    const target = resolve(dirname(from), reference);
    if (!existsSync(target) && !isBrokenLink(target)) return undefined; // kustomize says what is missing
    const real = safeRealpath(target);
    if (real === undefined) return `${shownPath(from)} refers to ${reference}, a broken symbolic link`;
    if (!this.inside(real))
      return `${shownPath(from)} refers to ${reference}, which is ${shownPath(real)}, outside the tree being linted (${TREE_HELP}); a kustomization may only read files inside it`;
    const stats = statSync(real);
    if (!stats.isFile() && !stats.isDirectory()) return `${shownPath(from)} refers to ${reference}, which is not a regular file`;
    return undefined;
  }
}

/** `$ref`s of a chart's values.schema.json: helm fetches URLs (and reads files) they name. */
function schemaReferenceProblem(path: string, text: string | undefined, allowNetwork: boolean): ChartRefusal | undefined {
  if (text === undefined) return undefined;
  let remote: ChartRefusal | undefined;
  for (const match of text.matchAll(/"\$(?:ref|schema|id)"\s*:\s*"([^"]*)"/g)) {
    const reference = match[1]!;
    if (/^file:/i.test(reference) || reference.startsWith('/'))
      return { kind: 'refused', message: `${path} refers to ${reference}: a schema may not read files outside the chart` };
    if (/^[a-z][a-z0-9+.-]*:/i.test(reference) && !allowNetwork && match[0].includes('$ref'))
      remote ??= { kind: 'network', message: `${path} refers to ${reference}: the network is off while rendering (--allow-network turns it on)` };
  }
  return remote;
}

/** The largest a packaged subchart may unpack to while its schemas are looked for. */
const MAX_PACKAGE_BYTES = 64 * 1024 * 1024;

/** A packaged subchart (charts/*.tgz, what `helm dependency build` leaves): its schemas, checked like the chart's own. */
function packagedChartProblem(path: string, allowNetwork: boolean): ChartRefusal | undefined {
  let tar: Buffer;
  try {
    tar = gunzipSync(readFileSync(path), { maxOutputLength: MAX_PACKAGE_BYTES });
  } catch (error) {
    return { kind: 'read', message: `${shownPath(path)} cannot be unpacked (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  let remote: ChartRefusal | undefined;
  for (const entry of tarEntries(tar)) {
    if (entry.name.endsWith('/values.schema.json') || entry.name === 'values.schema.json') {
      const problem = schemaReferenceProblem(`${shownPath(path)}:${entry.name}`, entry.data.toString('utf8'), allowNetwork);
      if (problem?.kind === 'network') remote ??= problem;
      else if (problem !== undefined) return problem;
    }
  }
  return remote;
}

/** The regular files of a ustar archive (names up to 255 bytes with the prefix field; PAX headers are skipped). */
function* tarEntries(tar: Buffer): Generator<{ name: string; data: Buffer }> {
  let offset = 0;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) return;
    const field = (start: number, length: number) =>
      header
        .subarray(start, start + length)
        .toString('utf8')
        .split('\0', 1)[0]!;
    const size = parseInt(field(124, 12).trim() || '0', 8);
    if (!Number.isFinite(size) || size < 0) return;
    const prefix = field(345, 155);
    const name = prefix === '' ? field(0, 100) : `${prefix}/${field(0, 100)}`;
    const type = String.fromCharCode(header[156] ?? 48);
    const start = offset + 512;
    if (type === '0' || type === '\0') yield { name, data: tar.subarray(start, Math.min(start + size, tar.length)) };
    offset = start + Math.ceil(size / 512) * 512;
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function safeRealpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function isBrokenLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
