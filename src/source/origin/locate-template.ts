// From a finding in helm's output back to the template line that renders it. A template is not
// YAML, so it cannot be parsed: the keys on the finding's path are followed down its text.
import { parsePointer, valueAt } from '../../model/pointer.js';
import type { Position } from '../../model/position.js';
import { isKubeObject, nameOf } from '../../model/resource.js';

/** Where in a template a pointer most likely renders, and how much of the pointer's path was found there. */
export interface TemplateMatch {
  position: Position;
  /** Keys of the path found (a container found by name counts for the keys above it). */
  depth: number;
}

/**
 * The line of a Helm template that most likely renders what `pointer` names (a template is not
 * YAML, so it cannot be parsed): the keys of the pointer's path are followed down the text as
 * `key:` lines, each below the last, and the deepest one written is the place — `livenessProbe:`
 * above a `toYaml .Values.livenessProbe` is what the user edits, or the values it pulls in.
 */
export function locateInTemplate(text: string, pointer: string, rendered: unknown, dead?: ReadonlySet<number>): Position {
  return matchInTemplate(text, pointer, rendered, false, dead)?.position ?? { line: 1, column: 1 };
}

/**
 * The match of `pointer` in a template. A container is found by its name: written literally
 * (`- name: exporter`) or with template actions (`- name: {{ .Chart.Name }}-exporter`, matched as a
 * pattern, the most literal pattern winning), so a later container's findings never land on the
 * first one's probe. With `partial`, the walk may start below the top of the path: a named
 * template (`define` in a `_helpers.tpl`) holds only the part of the pod it renders. `dead`: lines
 * of branches that did not render (template-branches.ts).
 */
export function matchInTemplate(text: string, pointer: string, rendered: unknown, partial: boolean, dead?: ReadonlySet<number>): TemplateMatch | undefined {
  const segments = parsePointer(pointer);
  // Lines of a branch this rendering's values rule out cannot have rendered it: as if blank.
  const written = dead === undefined || dead.size === 0 ? text.split('\n') : text.split('\n').map((line, index) => (dead.has(index) ? '' : line));
  // A template of several documents: only the one that renders this object is searched.
  const lines = partial ? written : ownDocument(written, rendered);
  const container = /^(.*\/(?:containers|initContainers|ephemeralContainers)\/\d+)(?:\/|$)/.exec(pointer)?.[1];
  const name = container === undefined ? undefined : (valueAt(rendered, container) as { name?: unknown } | undefined)?.name;
  let from = 0;
  let to = lines.length - 1;
  let anchor: TemplateMatch | undefined;
  if (typeof name === 'string') {
    const list = container!.split('/').at(-2)!;
    const found = containerNameLine(lines, name, list, Number(container!.split('/').at(-1)));
    if (found !== undefined) {
      // The container's keys are looked for in its whole item: `name:` need not come first (keys sorted, `- args:` first).
      ({ from, to } = itemBounds(lines, found.index));
      // The item itself counts: a template that names the container holds more of the path than one that only writes the list.
      anchor = { position: { line: found.index + 1, column: found.column }, depth: keysOf(parsePointer(container!)).length + 1 };
    }
  }
  if (container !== undefined && anchor === undefined && !partial) {
    // No name line renders it (`- args:` first, the name from a helper): the list's item by its index.
    const item = listItemLine(lines, keysOf(parsePointer(container)), Number(container.split('/').at(-1)));
    if (item !== undefined) {
      from = item.index;
      anchor = { position: { line: item.index + 1, column: item.column }, depth: keysOf(parsePointer(container)).length + 1 };
    }
  }
  const keys = keysOf(segments.slice(container === undefined || anchor === undefined ? 0 : parsePointer(container).length));
  let best = walkKeys(lines, keys, from, anchor, to);
  if (partial && anchor === undefined) {
    // A named template: try starting the walk at each key of the path, and keep the deepest.
    for (let skip = 1; skip < keys.length; skip++) {
      const walked = walkKeys(lines, keys.slice(skip), 0, undefined);
      if (walked !== undefined && walked.depth > 0 && (best === undefined || walked.depth + skip > best.depth))
        best = { ...walked, depth: walked.depth + skip };
    }
  }
  return best;
}

function keysOf(segments: string[]): string[] {
  return segments.filter((segment) => !/^\d+$/.test(segment));
}

/**
 * The lines of the template's document (between `---` lines) that renders `rendered`, the others
 * blanked: the one whose `kind:` is the object's, and among several, the one whose metadata name
 * matches it best (literal text over template actions). All lines when the template has one document
 * or none fits.
 */
function ownDocument(lines: string[], rendered: unknown): string[] {
  const separators = lines.flatMap((line, index) => (/^---(\s|$)/.test(line) ? [index] : []));
  if (separators.length === 0 || !isKubeObject(rendered)) return lines;
  const bounds = [-1, ...separators, lines.length].slice(0, -1).map((start, at, starts) => ({ from: start + 1, to: (starts[at + 1] ?? lines.length) - 1 }));
  const kind = new RegExp(`^kind:\\s*["']?${escape(rendered.kind)}["']?\\s*(#.*)?$`);
  const ofKind = bounds.filter(({ from, to }) => lines.slice(from, to + 1).some((line) => kind.test(line)));
  if (ofKind.length === 0) return lines;
  const name = nameOf(rendered);
  const score = ({ from, to }: { from: number; to: number }) =>
    Math.max(
      -1,
      ...lines.slice(from, to + 1).map((line) => {
        const written = line.startsWith('  name:') ? writtenValue(line.slice('  name:'.length)) : undefined;
        return written === undefined ? -1 : nameScore(written, name);
      }),
    );
  const best = ofKind.reduce((a, b) => (score(b) > score(a) ? b : a));
  return lines.map((line, index) => (index >= best.from && index <= best.to ? line : ''));
}

/** How well a written name (literal text and template actions) renders `name`: the literal length, -1 when it cannot. */
function nameScore(written: string, name: string): number {
  if (written === name) return Number.MAX_SAFE_INTEGER;
  if (!written.includes('{{')) return -1;
  const parts = literalParts(written);
  return rendersAs(parts, name, 0) ? parts.join('').length : -1;
}

/**
 * The value of a `name:` line, after the colon, as written: up to a comment, without blanks around
 * it or the quotes of a quoted string; undefined when there is none. By hand: the expression it
 * replaces (`\s*(.+?)\s*(?:#.*)?$`) took time quadratic in a run of blanks, and templates are the
 * repository's.
 */
function writtenValue(afterColon: string): string | undefined {
  const value = afterColon.trimStart();
  // As before: a `#` after the first character starts the comment.
  const comment = value.indexOf('#', 1);
  const written = (comment === -1 ? value : value.slice(0, comment)).trimEnd();
  if (written === '') return undefined;
  const quote = written[0];
  return written.length >= 2 && (quote === '"' || quote === "'") && written.endsWith(quote) ? written.slice(1, -1) : written;
}

/** The literal text of a written name around its template actions (`{{ … }}`), in order. */
export function literalParts(written: string): string[] {
  const parts: string[] = [];
  let from = 0;
  for (let open = written.indexOf('{{'); open !== -1; open = written.indexOf('{{', from)) {
    const close = written.indexOf('}}', open + 2);
    if (close === -1) break;
    parts.push(written.slice(from, open));
    from = close + 2;
  }
  parts.push(written.slice(from));
  return parts;
}

/**
 * Whether `name` is the literal parts in order with at least `gap` characters in place of each
 * action between them: a glob, matched left to right (each part at its first place after the last
 * leaves the most room for the rest), in linear time. A regular expression of the parts joined by
 * `.*?` backtracked exponentially on a name it did not match: a 60-line chart stalled a lint for
 * minutes.
 */
export function rendersAs(parts: readonly string[], name: string, gap: number): boolean {
  const first = parts[0]!;
  const last = parts.at(-1)!;
  // No action closed: the text itself.
  if (parts.length === 1) return name === first;
  if (!name.startsWith(first)) return false;
  let at = first.length;
  for (const part of parts.slice(1, -1)) {
    const found = name.indexOf(part, at + gap);
    if (found === -1) return false;
    at = found + part.length;
  }
  return name.length - last.length >= at + gap && name.endsWith(last);
}

/**
 * The lines of the list item a container's `name:` line belongs to: from the item's `- ` line (the
 * name line itself, or one above at the name's indentation less two) to the line before the next
 * line indented no deeper than the item. Lines of template actions alone are passed over.
 */
function itemBounds(lines: string[], nameIndex: number): { from: number; to: number } {
  const indentOf = (line: string) => line.length - line.trimStart().length;
  const passedOver = (line: string) => line.trim() === '' || line.trimStart().startsWith('#') || /^\{\{.*\}\}$/.test(line.trim());
  const nameLine = lines[nameIndex]!;
  let from = nameIndex;
  let itemIndent = indentOf(nameLine);
  if (!/^\s*-\s/.test(nameLine)) {
    const keyIndent = indentOf(nameLine);
    for (let index = nameIndex - 1; index >= 0; index--) {
      const line = lines[index]!;
      if (passedOver(line)) continue;
      const indent = indentOf(line);
      if (/^\s*-\s/.test(line) && indent + 2 === keyIndent) {
        from = index;
        itemIndent = indent;
        break;
      }
      if (indent < keyIndent) break;
    }
    if (from === nameIndex) itemIndent = keyIndent - 2;
  }
  let to = lines.length - 1;
  for (let index = from + 1; index < lines.length; index++) {
    const line = lines[index]!;
    if (passedOver(line)) continue;
    if (indentOf(line) <= itemIndent) {
      to = index - 1;
      break;
    }
  }
  return { from, to };
}

/** Down the path key by key, each looked for below the one before (and, in an item, within it): the last one written is the place. */
function walkKeys(lines: string[], keys: string[], from: number, anchor: TemplateMatch | undefined, to = lines.length - 1): TemplateMatch | undefined {
  let found = anchor;
  let depth = anchor?.depth ?? 0;
  for (const segment of keys) {
    const key = escape(segment);
    const pattern = new RegExp(`^(\\s*(?:-\\s+)?)(?:"${key}"|'${key}'|${key})\\s*:`);
    const index = lines.findIndex((line, number) => number >= from && number <= to && pattern.test(line));
    if (index === -1) break;
    depth++;
    found = { position: { line: index + 1, column: pattern.exec(lines[index]!)![1]!.length + 1 }, depth };
    from = index + 1;
  }
  return found;
}

/**
 * The `position`-th item (`- …`) of the list whose key path is `keys` (`…/containers`), counted at the
 * indentation of its first item; lines of template actions alone are passed over.
 */
function listItemLine(lines: string[], keys: string[], position: number): { index: number; column: number } | undefined {
  const list = walkKeys(lines, keys, 0, undefined);
  if (list === undefined || list.depth !== keys.length) return undefined;
  const keyIndent = list.position.column - 1;
  let itemIndent: number | undefined;
  let count = -1;
  for (let index = list.position.line; index < lines.length; index++) {
    const line = lines[index]!;
    const trimmed = line.trimStart();
    if (trimmed === '' || trimmed.startsWith('#') || /^\{\{.*\}\}$/.test(trimmed)) continue;
    const indent = line.length - trimmed.length;
    if (itemIndent === undefined) {
      if (!trimmed.startsWith('- ') || indent < keyIndent) return undefined;
      itemIndent = indent;
    }
    if (indent < itemIndent || (indent === itemIndent && !trimmed.startsWith('- '))) return undefined;
    if (indent === itemIndent && ++count === position) return { index, column: indent + 1 };
  }
  return undefined;
}

/**
 * The `name:` line that renders `name`: written as is, or as a pattern of literal text and template
 * actions, the most literal winning; among equally good ones, the one at the container's index.
 */
function containerNameLine(lines: string[], name: string, list: string, position: number): { index: number; column: number } | undefined {
  const line = /^(\s*(?:-\s+)?)name:/;
  const candidates: { index: number; column: number; literal: number }[] = [];
  // A pattern only counts for list items after the list's key (`containers:`): not a metadata name.
  const listStart = lines.findIndex((text) => new RegExp(`^\\s*${list}\\s*:`).test(text));
  for (let index = 0; index < lines.length; index++) {
    const match = line.exec(lines[index]!);
    const written = match === null ? undefined : writtenValue(lines[index]!.slice(match[0].length));
    if (match === null || written === undefined) continue;
    // A name above the list's key (the object's own `metadata: name:`) is no container's.
    if (listStart !== -1 && index <= listStart) continue;
    let literal: number;
    if (written === name) literal = Number.MAX_SAFE_INTEGER;
    else if (written.includes('{{') && index > listStart && listStart !== -1 && match[1]!.includes('-')) {
      const parts = literalParts(written);
      if (!rendersAs(parts, name, 1)) continue;
      literal = parts.join('').length;
    } else continue;
    candidates.push({ index, column: match[1]!.length + 1, literal });
  }
  const most = Math.max(...candidates.map((candidate) => candidate.literal));
  const best = candidates.filter((candidate) => candidate.literal === most);
  return best[Math.min(position, best.length - 1)];
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
