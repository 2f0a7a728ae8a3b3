import type { Severity } from '../engine/rule.js';
import { standaloneMessage } from './finding-text.js';
import {
  failingInputErrors,
  inputErrorWhere,
  renderedNote,
  scopeText,
  whereText,
  type BaselineEntry,
  type InputError,
  type LocatedFinding,
  type LocatedSuppressed,
  type ReportInput,
} from './located.js';
import { visible } from './visible.js';

const COLORS: Record<Severity, string> = { error: '\x1b[31m', warning: '\x1b[33m', info: '\x1b[36m' };
const RESET = '\x1b[0m';
const DIM = '\x1b[2m';
const RULE_WIDTH = 24;

/** What a line of the report says: an input error, a finding, or a finding shown suppressed. */
type Entry = { error: InputError } | { finding: LocatedFinding } | { suppressed: LocatedSuppressed } | { baselined: LocatedFinding };

/**
 * Grouped by file: `file:line:column  severity  rule  message`, then one summary line. On a
 * terminal of known width the message wraps under its line, indented, instead of running on.
 * Written in chunks, each line made when its chunk is: every line of 26,763 findings held at once,
 * then joined, took the 16 MB file's process 93 MB more at its peak (316 against 223 MB).
 */
export function textChunks(input: ReportInput): Generator<string> {
  const paint = (code: string, text: string) => (input.color ? `${code}${text}${RESET}` : text);
  const groups = new Map<string, Entry[]>();
  const group = (key: string) => groups.get(key) ?? groups.set(key, []).get(key)!;
  for (const error of input.inputErrors) group(error.file).push({ error });
  for (const finding of input.findings) group(finding.file ?? finding.identity.kind).push({ finding });
  if (input.showSuppressed) for (const finding of input.suppressed) group(finding.file ?? finding.identity.kind).push({ suppressed: finding });
  if (input.showSuppressed) for (const finding of input.baseline?.baselined ?? []) group(finding.file ?? finding.identity.kind).push({ baselined: finding });

  const entry = (head: string, message: string) =>
    input.columns === undefined ? `${head}  ${message}` : `${head}\n${wrap(message, input.columns - 4, '    ')}`;
  const line = (finding: LocatedFinding, suffix = '') =>
    entry(
      `${visible(whereText(finding))}  ${paint(COLORS[finding.severity], finding.severity.padEnd(7))}  ${finding.rule.padEnd(RULE_WIDTH)}`,
      visible(`${standaloneMessage(finding)}${renderedNote(finding)}${suffix}`),
    );
  const text = (item: Entry): string => {
    if ('error' in item) {
      const { error } = item;
      const severity = error.severity ?? 'error';
      return entry(`${visible(inputErrorWhere(error))}  ${paint(COLORS[severity], severity.padEnd(7))}  ${'input'.padEnd(RULE_WIDTH)}`, visible(error.message));
    }
    if ('finding' in item) return line(item.finding);
    if ('baselined' in item) return paint(DIM, line(item.baselined, ' [in the baseline]'));
    const { suppressed } = item;
    return paint(DIM, line(suppressed, ` [suppressed by ${suppressed.suppression.by}: ${suppressed.suppression.reason}]`));
  };

  const lines = function* (): Generator<string> {
    for (const [file, entries] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      yield paint('\x1b[4m', visible(file));
      for (const item of entries) yield `  ${text(item)}`;
      yield '';
    }
    const fixed = input.baseline?.fixed ?? [];
    if (fixed.length > 0) {
      yield `${paint('\x1b[32m', '✔')} fixed since the baseline ${visible(input.baseline!.file)} (--prune-baseline drops them):`;
      for (const entry of fixed) yield `  ${visible(fixedText(entry))}`;
      yield '';
    }
    yield summaryLine(input, paint);
  };
  return lineChunks(lines());
}

/** The last line: never a success mark when something went wrong, and input errors said first. */
export function summaryLine(input: ReportInput, paint: (code: string, text: string) => string): string {
  const { summary } = input;
  const problems = summary.errors + summary.warnings + summary.infos;
  const scope = scopeText(summary);
  const suppressed = input.suppressed.length ? `; ${input.suppressed.length} suppressed` : '';
  const outside = input.outsideInputs
    ? `; ${input.outsideInputs} in other files of what was rendered not shown (name them, or their directory, to see them)`
    : '';
  const change = input.changedSince?.outside ? `; ${input.changedSince.outside} in files not changed since ${visible(input.changedSince.ref)} not shown` : '';
  const hidden = `${input.hidden ? `; ${input.hidden} below --min-severity not shown` : ''}${outside}${change}${baselineNote(input)}`;
  const counts = `${summary.errors} ${plural(summary.errors, 'error')}, ${summary.warnings} ${plural(summary.warnings, 'warning')}, ${summary.infos} ${plural(summary.infos, 'info')}`;
  const failing = failingInputErrors(input.inputErrors).length;
  const passing = input.inputErrors.length - failing;
  // Input errors config lets pass are said, not counted as the run's failure.
  const passed = passing > 0 ? `; ${passing} ${plural(passing, 'input error')} let pass by the config (inputErrors)` : '';
  if (failing > 0) {
    const errors = `${failing} ${plural(failing, 'input error')}`;
    return `${paint(COLORS.error, '✖')} ${errors}; ${problems} ${plural(problems, 'problem')} (${counts}) in ${scope}${suppressed}${hidden}${passed}`;
  }
  if (problems === 0)
    return `${paint(passing > 0 ? COLORS.warning : '\x1b[32m', passing > 0 ? '⚠' : '✔')} no problems in ${scope}${suppressed}${hidden}${passed}`;
  const mark = summary.errors ? paint(COLORS.error, '✖') : summary.warnings || passing > 0 ? paint(COLORS.warning, '⚠') : paint(COLORS.info, 'ℹ');
  return `${mark} ${problems} ${plural(problems, 'problem')} (${counts}) in ${scope}${suppressed}${hidden}${passed}`;
}

/** "; 12 in the baseline .probe-lint-baseline.json (not counted), 1 fixed", or "" without a baseline. */
function baselineNote(input: ReportInput): string {
  if (input.baseline === undefined) return '';
  const { baselined, fixed, file } = input.baseline;
  const gone = fixed.reduce((sum, entry) => sum + entry.count, 0);
  return `; ${baselined.length} in the baseline ${visible(file)} (not counted)${gone > 0 ? `, ${gone} fixed` : ''}`;
}

/** "fixed  liveness-mirrors-readiness  Deployment/shop/web container=web": one line per fixed entry. */
function fixedText(entry: BaselineEntry): string {
  const container = entry.container === null ? '' : ` container=${entry.container}`;
  const times = entry.count > 1 ? ` (${entry.count}×)` : '';
  return `fixed  ${entry.rule}  ${entry.object}${container}${times}`;
}

/** Word-wraps `text` to `width` columns, each line starting with `indent`. */
export function wrap(text: string, width: number, indent: string): string {
  const room = Math.max(20, width - indent.length);
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(' ')) {
    if (current !== '' && current.length + 1 + word.length > room) {
      lines.push(indent + current);
      current = word;
    } else current = current === '' ? word : `${current} ${word}`;
  }
  if (current !== '') lines.push(indent + current);
  return lines.join('\n');
}

export function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}

/** Chunks of lines are handed on at about this size (JSON's too): one write per line would be a system call each. */
const LINE_CHUNK_CHARACTERS = 64 * 1024;

/** The lines, each ended by a line break, in chunks of about LINE_CHUNK_CHARACTERS; each line is made when its chunk is (compact's report uses it too). */
export function* lineChunks(lines: Iterable<string>): Generator<string> {
  // Joined once per chunk: joining flattens them in one pass, where += would build a deep rope.
  let parts: string[] = [];
  let size = 0;
  for (const line of lines) {
    parts.push(line);
    size += line.length + 1;
    if (size >= LINE_CHUNK_CHARACTERS) {
      yield parts.join('\n') + '\n';
      parts = [];
      size = 0;
    }
  }
  if (parts.length > 0) yield parts.join('\n') + '\n';
}
