// Seeded mutations of real manifests for the fuzz tests: the same seed gives the same inputs, so a
// failure names its seed and case and can be replayed (FUZZ_SEED=… FUZZ_CASES=…).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { ROOT, SHARED } from './helpers.js';

/** mulberry32: small, fast, and good enough to pick mutations. */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  below(limit: number): number {
    return Math.floor(this.next() * limit);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }
}

export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261129);

/** Every manifest of the rule fixtures, and a seeded sample of the real-world corpus when it is present. */
export function seedManifests(random: Random, corpusSample: number): { path: string; text: string }[] {
  const files = walk(join(ROOT, 'rules')).filter((path) => /\/fixtures\/.*\.(ya?ml|json)$/.test(path));
  const corpus = join(SHARED, 'corpus/real');
  if (existsSync(corpus)) {
    const real = walk(corpus).filter((path) => /\.(ya?ml|json)$/.test(path) && statSync(path).size < 200_000);
    for (let index = 0; index < corpusSample && real.length > 0; index++) files.push(real.splice(random.below(real.length), 1)[0]!);
  }
  return files.map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

function walk(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? walk(join(directory, entry.name)) : [join(directory, entry.name)]))
    .sort();
}

/** Values that have broken YAML and Kubernetes tools: wrong types, edges of int32, YAML 1.1 booleans, prototype keys. */
const ODD_VALUES: unknown[] = [
  0,
  -1,
  2147483647,
  2147483648,
  -2147483649,
  1.2345678901234567e19,
  1.5,
  Number.POSITIVE_INFINITY,
  Number.NaN,
  '10',
  '',
  'yes',
  'off',
  null,
  true,
  [],
  {},
  [1, 'a', null],
  { toString: 1, valueOf: 1 },
  JSON.parse('{"__proto__": {"polluted": true}, "containers": []}') as unknown,
  { constructor: { prototype: { polluted: true } } },
  'x'.repeat(300),
  '$(HOME)',
  '\u0000\u001b[31m\u202e',
  { a: { b: { c: { d: { e: { f: [[[[[]]]]] } } } } } },
];

const ODD_TEXT = [
  ': ',
  '- ',
  '{',
  '}',
  '[',
  ']',
  '&a ',
  '*a',
  '<<: *a\n',
  '\t',
  '\r',
  '\r\n',
  '\u0000',
  '---\n',
  '...\n',
  '"',
  "'",
  '#',
  '|',
  '>',
  '!!str ',
  '? ',
  '%YAML 1.1\n',
  '\uFEFF',
  '\u2028',
  'é',
  '🙂',
];

/** A mutation of `text`: edits of the text itself, or of its parsed documents written back as YAML or JSON. */
export function mutate(text: string, random: Random): string {
  const rounds = 1 + random.below(3);
  let result = text;
  for (let round = 0; round < rounds; round++) result = random.next() < 0.5 ? mutateText(result, random) : mutateStructure(result, random);
  return result;
}

function mutateText(text: string, random: Random): string {
  const lines = text.split('\n');
  const line = random.below(Math.max(lines.length, 1));
  switch (random.below(8)) {
    case 0:
      lines.splice(line, 1);
      break;
    case 1:
      lines.splice(line, 0, lines[random.below(lines.length)] ?? '');
      break;
    case 2: {
      const other = random.below(lines.length);
      [lines[line], lines[other]] = [lines[other]!, lines[line]!];
      break;
    }
    case 3: {
      const current = lines[line] ?? '';
      const at = random.below(current.length + 1);
      lines[line] = current.slice(0, at) + random.pick(ODD_TEXT) + current.slice(at);
      break;
    }
    case 4:
      return text.slice(0, random.below(text.length + 1));
    case 5:
      lines[line] = ' '.repeat(random.below(12)) + (lines[line] ?? '').trimStart();
      break;
    case 6:
      lines[line] = (lines[line] ?? '').replace(/\b\d+\b/, () =>
        String(random.pick([0, -1, 2147483648, '12345678901234567890', '1.0', '.inf', '.nan', '0x1F', '0o17', '1_000', '~'])),
      );
      break;
    case 7:
      lines[line] = (lines[line] ?? '').replace(/: .*$/, `: ${JSON.stringify(random.pick(ODD_VALUES)) ?? 'null'}`);
      break;
  }
  return lines.join('\n');
}

function mutateStructure(text: string, random: Random): string {
  let documents: unknown[];
  try {
    const parsed = parseAllDocuments(text, { version: '1.1', merge: true, uniqueKeys: false });
    if (!Array.isArray(parsed) || parsed.some((document) => document.errors.length > 0)) return mutateText(text, random);
    documents = parsed.map((document) => document.toJS({ maxAliasCount: 1000 }) as unknown);
  } catch {
    return mutateText(text, random);
  }
  if (documents.length === 0) return text;
  const index = random.below(documents.length);
  documents[index] = mutateValue(documents[index], random, 0);
  if (random.next() < 0.3 && documents.length === 1) return JSON.stringify(documents[0], null, random.pick([0, 2, 4])) ?? 'null';
  return documents.map((document) => stringify(document, { version: '1.1', aliasDuplicateObjects: false })).join('---\n');
}

/** Replaces, removes or adds one node somewhere below `value`, preferring the probes and containers. */
function mutateValue(value: unknown, random: Random, depth: number): unknown {
  if (value === null || typeof value !== 'object' || depth > 12 || random.next() < 0.08) return oddValue(random);
  if (Array.isArray(value)) {
    if (value.length === 0 || random.next() < 0.1) return [...value, oddValue(random)];
    const copy = [...value];
    const index = random.below(copy.length);
    copy[index] = mutateValue(copy[index], random, depth + 1);
    if (random.next() < 0.1) copy.push(...Array.from({ length: random.below(50) }, () => structuredClone(copy[index])));
    return copy;
  }
  const record = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(record);
  const interesting = keys.filter((key) => /probe|containers|spec|template|items|port|Seconds|Threshold|httpGet|exec|command|metadata|annotations/i.test(key));
  if (keys.length === 0 || random.next() < 0.1) {
    record[random.pick(['livenessProbe', 'readinessProbe', 'startupProbe', 'port', 'periodSeconds', 'containers', '__proto__', 'items', 'kind'])] =
      oddValue(random);
    return record;
  }
  const key = interesting.length > 0 && random.next() < 0.8 ? random.pick(interesting) : random.pick(keys);
  if (random.next() < 0.1) delete record[key];
  else record[key] = mutateValue(record[key], random, depth + 1);
  return record;
}

function oddValue(random: Random): unknown {
  const value = random.pick(ODD_VALUES);
  return value !== null && typeof value === 'object' ? structuredClone(value) : value;
}
