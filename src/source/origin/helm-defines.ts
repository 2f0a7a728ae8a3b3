// The named templates (`{{ define "name" }}`) a chart can include, as helm loads them: every file
// under `templates/` at any depth — `_helpers.tpl`, `_pod.yaml`, `memcached/_statefulset.tpl` — of
// the chart and of each dependency chart it carries. A finding in rendered output is looked for in
// the defines its template actually includes (transitively), never in a file it does not reach.
import { join } from 'node:path';
import type { FileCache } from '../read/file-cache.js';
import { listDirectory, pathsIn } from '../read/list-directory.js';

export interface Define {
  name: string;
  file: string;
  /** The define's body, as zero-based line numbers [first, last] of its file. */
  firstLine: number;
  lastLine: number;
}

/** Bounds: a chart's templates are a few hundred files at most; a tree past these is not searched further. */
const MAX_TEMPLATE_FILES = 5_000;
const MAX_DIRECTORY_DEPTH = 16;
/** Defines followed from one template: enough for bitnami's common library (a few hundred). */
const MAX_REACHED = 2_000;

// `{{- define "name" -}}`, `{{ include "name" . }}`, `{{ template "name" . }}`: names as helm reads them (Go string literals, double-quoted or raw).
const ACTION = /\{\{-?\s*(?:\/\*[\s\S]*?\*\/\s*-?\}\}|(define|block|if|range|with|end)\b[^}]*?-?\}\})/g;
const NAME_AFTER = /^(?:define|block)\s+(?:"((?:[^"\\]|\\.)*)"|`([^`]*)`)/;
const CALLS = /\b(?:include|template)\s+(?:"((?:[^"\\]|\\.)*)"|`([^`]*)`)/g;

/** Every define of the charts at `chartDirectories` (each with its charts/ below it), by name; a later chart's define of a taken name does not replace it. */
export class DefineIndex {
  private readonly byName = new Map<string, Define>();

  constructor(chartDirectories: readonly string[], files: FileCache) {
    const templateFiles: string[] = [];
    const seenCharts = new Set<string>();
    const addChart = (chart: string, depth: number) => {
      if (seenCharts.has(chart) || depth > MAX_DIRECTORY_DEPTH) return;
      seenCharts.add(chart);
      collectFiles(join(chart, 'templates'), 0, templateFiles);
      for (const dependency of pathsIn(join(chart, 'charts'), 'directories')) addChart(dependency, depth + 1);
    };
    for (const chart of chartDirectories) addChart(chart, 0);
    for (const file of templateFiles.slice(0, MAX_TEMPLATE_FILES)) {
      const text = files.text(file);
      if (text === undefined || !text.includes('define')) continue;
      for (const define of definesIn(file, text)) if (!this.byName.has(define.name)) this.byName.set(define.name, define);
    }
  }

  /** The defines `text` includes, and those they include, in the order met. */
  reachedFrom(text: string, files: FileCache): Define[] {
    const reached: Define[] = [];
    const seen = new Set<string>();
    const queue = [text];
    while (queue.length > 0 && reached.length < MAX_REACHED) {
      for (const name of calledNames(queue.shift()!)) {
        const define = this.byName.get(name);
        if (define === undefined || seen.has(name)) continue;
        seen.add(name);
        reached.push(define);
        const body = bodyText(define, files);
        if (body !== undefined) queue.push(body);
      }
    }
    return reached;
  }
}

function collectFiles(directory: string, depth: number, into: string[]): void {
  if (depth > MAX_DIRECTORY_DEPTH || into.length >= MAX_TEMPLATE_FILES) return;
  for (const entry of listDirectory(directory)) {
    const path = join(directory, entry.name);
    if (entry.isFile()) into.push(path);
    else if (entry.isDirectory()) collectFiles(path, depth + 1, into);
  }
}

/** The defines of one file, each with the lines of its body (between its action and its `end`). */
export function definesIn(file: string, text: string): Define[] {
  const defines: Define[] = [];
  const open: { name: string | undefined; line: number }[] = [];
  const lineAt = lineCounter(text);
  for (const match of text.matchAll(ACTION)) {
    const keyword = match[1];
    if (keyword === undefined) continue; // a comment
    if (keyword === 'end') {
      const closed = open.pop();
      if (closed?.name !== undefined) defines.push({ name: closed.name, file, firstLine: closed.line, lastLine: lineAt(match.index) });
      continue;
    }
    const named = keyword === 'define' || keyword === 'block' ? NAME_AFTER.exec(match[0].replace(/^\{\{-?\s*/, '')) : null;
    open.push({ name: named === null ? undefined : (named[1] ?? named[2]), line: lineAt(match.index + match[0].length) });
  }
  return defines;
}

/** The names a template text includes or calls. */
function calledNames(text: string): string[] {
  return [...text.matchAll(CALLS)].map((match) => match[1] ?? match[2]!);
}

/** The define's file with every line outside its body blanked, so that positions found in it are the file's. */
export function bodyText(define: Define, files: FileCache): string | undefined {
  const text = files.text(define.file);
  if (text === undefined) return undefined;
  return text
    .split('\n')
    .map((line, index) => (index >= define.firstLine && index <= define.lastLine ? line : ''))
    .join('\n');
}

/** Zero-based line of an offset, for offsets met in increasing order. */
function lineCounter(text: string): (offset: number) => number {
  let line = 0;
  let at = 0;
  return (offset) => {
    for (; at < offset && at < text.length; at++) if (text.charCodeAt(at) === 10) line++;
    return line;
  };
}
