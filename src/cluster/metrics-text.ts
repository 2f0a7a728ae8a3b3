// Reads the Prometheus text exposition format (version 0.0.4), as a kubelet serves it at
// /metrics/probes, for the few metric families audit asks for. npm has no maintained parser of it,
// and the format is small: `name{label="value",…} value [timestamp]` per line, `#` lines are
// comments. The text comes from a node (through the API server) and is not trusted: a line that
// does not parse is an error naming its line, and label names become keys of a null-prototype map.

export interface MetricSample {
  name: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

const NAME = /[a-zA-Z_:][a-zA-Z0-9_:]*/y;
const LABEL_NAME = /[a-zA-Z_][a-zA-Z0-9_]*/y;
const ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', n: '\n' };

export class MetricsTextError extends Error {}

/** The samples of the `wanted` metric names, in the order of the text. */
export function* metricSamples(text: string, wanted: ReadonlySet<string>): Generator<MetricSample> {
  let lineNumber = 0;
  for (const line of text.split('\n')) {
    lineNumber++;
    if (line === '' || line.startsWith('#')) continue;
    NAME.lastIndex = 0;
    const name = NAME.exec(line)?.[0];
    if (name === undefined) throw new MetricsTextError(`line ${lineNumber}: no metric name`);
    // Most lines are other families: skipped before their labels are read.
    if (!wanted.has(name)) continue;
    const { labels, end } = readLabels(line, name.length, lineNumber);
    const fields = line
      .slice(end)
      .trim()
      .split(/[ \t]+/);
    if (fields.length < 1 || fields.length > 2 || fields[0] === '') throw new MetricsTextError(`line ${lineNumber}: expected a value after ${name}`);
    const value = sampleValue(fields[0]!);
    if (value === undefined) throw new MetricsTextError(`line ${lineNumber}: "${fields[0]!.slice(0, 40)}" is not a sample value`);
    yield { name, labels, value };
  }
}

/** `{a="x",b="y"}` from `start` (or nothing there): the labels and where the text after them begins. */
function readLabels(line: string, start: number, lineNumber: number): { labels: Record<string, string>; end: number } {
  const labels = Object.create(null) as Record<string, string>;
  if (line[start] !== '{') return { labels, end: start };
  let at = start + 1;
  const fail = (why: string) => new MetricsTextError(`line ${lineNumber}, column ${at + 1}: ${why}`);
  while (line[at] !== '}') {
    LABEL_NAME.lastIndex = at;
    const label = LABEL_NAME.exec(line)?.[0];
    if (label === undefined) throw fail('expected a label name');
    at += label.length;
    if (line[at] !== '=' || line[at + 1] !== '"') throw fail(`expected ="…" after ${label}`);
    at += 2;
    let value = '';
    for (;;) {
      const char = line[at];
      if (char === undefined) throw fail('unterminated label value');
      at++;
      if (char === '"') break;
      if (char !== '\\') {
        value += char;
        continue;
      }
      const escaped = ESCAPES[line[at] ?? ''];
      if (escaped === undefined) throw fail('unknown escape in a label value');
      value += escaped;
      at++;
    }
    labels[label] = value;
    if (line[at] === ',') at++;
    else if (line[at] !== '}') throw fail('expected , or } after a label');
  }
  return { labels, end: at + 1 };
}

/** A histogram bucket's upper bound, its `le` label ("0.005", "+Inf"); NaN when it is not a number. */
export function bucketBound(le: string): number {
  return sampleValue(le) ?? NaN;
}

/** A Go float as the format writes it: digits, exponents, +Inf, -Inf, NaN. */
function sampleValue(text: string): number | undefined {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  return /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/.test(text) ? Number(text) : undefined;
}
