// Plain scalars read the way kubectl reads them. kubectl turns YAML into JSON with
// sigs.k8s.io/yaml, which parses with go-yaml v2 (YAML 1.1) and then marshals with Go's
// encoding/json. So, for an unquoted scalar (go.yaml.in/yaml/v2 resolve.go):
//   - y Y yes Yes YES true True TRUE on On ON are true; n N no No NO false False FALSE off Off OFF are false;
//   - "" ~ null Null NULL are null; .inf .nan (any case form listed) are floats JSON cannot carry;
//   - integers follow Go's strconv.ParseInt(s, 0, 64) after every "_" is removed: 0755 is octal
//     (493), 0x1F hex, 0o17 octal, 0b101 binary, +12 twelve; beyond int64 they are unsigned or floats;
//   - floats match ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ (so 08 is the float 8);
//   - a plain scalar that starts YYYY- and parses as a timestamp becomes Go's RFC 3339 JSON string
//     ("2024-1-2" → "2024-01-02T00:00:00Z");
//   - `<<` merges mappings.
// Quoted scalars stay strings. Mapping keys become strings the way sigs.k8s.io/yaml does it.
import jsYaml from 'js-yaml';
import { trimTrailing } from '../../model/trim-trailing.js';

type Resolved = { value: unknown } | undefined;

// Maps, not objects: a scalar may be "toString", which an object would answer with its prototype's function.
const BOOLEANS = new Map<string, boolean>([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'].map((word) => [word, true] as const),
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'].map((word) => [word, false] as const),
]);
const NULLS = new Set(['~', 'null', 'Null', 'NULL']);
const SPECIAL_FLOATS = new Map<string, number>([
  ['.nan', NaN],
  ['.NaN', NaN],
  ['.NAN', NaN],
  ['.inf', Infinity],
  ['.Inf', Infinity],
  ['.INF', Infinity],
  ['+.inf', Infinity],
  ['+.Inf', Infinity],
  ['+.INF', Infinity],
  ['-.inf', -Infinity],
  ['-.Inf', -Infinity],
  ['-.INF', -Infinity],
]);
const GO_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const GO_INT = /^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
const TIMESTAMP = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:([Tt])|[ ])(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,9}))?(Z|[-+]\d{2}:\d{2})?)?$/;

/** What go-yaml v2 makes of a plain scalar, as JSON would carry it; undefined when it stays a string. */
export function resolvePlainScalar(text: string): Resolved {
  if (text === '') return { value: null };
  const first = text.charCodeAt(0);
  const isDigit = first >= 0x30 && first <= 0x39;
  const isSign = first === 0x2b || first === 0x2d;
  if (!isDigit && !isSign && first !== 0x2e) {
    // Every key and most values land here: the words above are 1 to 5 letters long ("FALSE").
    if (text.length > 5 || !'yYnNtTfFoO~'.includes(text[0]!)) return undefined;
    const word = BOOLEANS.get(text);
    if (word !== undefined) return { value: word };
    return NULLS.has(text) ? { value: null } : undefined;
  }
  // From here the scalar starts with a digit, a sign or a dot: no word above does.
  const special = SPECIAL_FLOATS.get(text);
  if (special !== undefined) return { value: special };
  if (first === 0x2e) {
    // Go's ParseFloat on ".5", ".5e3"
    return /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(text) ? { value: Number(text) } : undefined;
  }
  // The common integer (a port, a count): digits only, no leading zero, exact as a double.
  if (isDigit && text.length <= 15 && (first !== 0x30 || text.length === 1) && onlyDigits(text)) return { value: Number(text) };
  const timestamp = isDigit ? timestampJson(text) : undefined;
  if (timestamp !== undefined) return { value: timestamp };
  const plain = text.includes('_') ? text.replace(/_/g, '') : text;
  if (GO_INT.test(plain)) return { value: goInteger(plain) };
  if (GO_FLOAT.test(plain)) return { value: Number(plain) };
  if (/^-0b[01]+$/.test(plain)) return { value: -parseInt(plain.slice(3), 2) };
  return undefined;
}

function onlyDigits(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x30 || code > 0x39) return false;
  }
  return true;
}

function goInteger(plain: string): number {
  const negative = plain.startsWith('-');
  const digits = plain.replace(/^[-+]/, '');
  let value: number;
  if (/^0[xX]/.test(digits)) value = parseInt(digits.slice(2), 16);
  else if (/^0[oO]/.test(digits)) value = parseInt(digits.slice(2), 8);
  else if (/^0[bB]/.test(digits)) value = parseInt(digits.slice(2), 2);
  else if (digits.length > 1 && digits.startsWith('0')) value = parseInt(digits, 8);
  else value = Number(digits);
  const signed = negative ? -value : value;
  return Math.abs(signed) < 2 ** 53 ? signed : int64Faithful(exactInteger(digits, negative), signed);
}

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
/** The doubles next to ±2^63: int64's bounds are not doubles, and the nearest double of a value just inside is the bound itself. */
const BELOW_2_63 = 9223372036854774784;
const ABOVE_2_63 = 9223372036854777856;

/** The integer a Go literal writes, exactly (hex, octal, binary or decimal digits, the sign apart). */
function exactInteger(digits: string, negative: boolean): bigint {
  const magnitude = /^0[xXoObB]/.test(digits)
    ? BigInt(digits.toLowerCase())
    : digits.length > 1 && digits.startsWith('0')
      ? BigInt(`0o${digits.slice(1)}`)
      : BigInt(digits);
  return negative ? -magnitude : magnitude;
}

/**
 * A double that says on which side of int64's bounds the exact integer lies: the API server refuses
 * 9223372036854775808 in an int64 field and takes 9223372036854775807, but both are the same double
 * (2^63). Inside the bounds a value is kept strictly inside (±2^63 become the doubles next to them);
 * outside, strictly outside. (isInt64 checks the double against ±2^63.)
 */
function int64Faithful(exact: bigint, nearest: number): number {
  if (exact > INT64_MAX) return nearest > 2 ** 63 ? nearest : ABOVE_2_63;
  if (exact < INT64_MIN) return nearest < -(2 ** 63) ? nearest : -ABOVE_2_63;
  if (exact === INT64_MIN) return nearest;
  return nearest >= 2 ** 63 ? BELOW_2_63 : nearest <= -(2 ** 63) ? -BELOW_2_63 : nearest;
}

/** Go's time.Time JSON (RFC 3339, fraction without trailing zeros) for a YAML 1.1 timestamp, or undefined. */
function timestampJson(text: string): string | undefined {
  if (text.length < 5 || text[4] !== '-') return undefined;
  const match = TIMESTAMP.exec(text);
  if (match === null) return undefined;
  const [, year, month, day, , hour = '0', minute = '0', second = '0', fraction, zone] = match;
  const numbers = [year, month, day, hour, minute, second].map(Number) as [number, number, number, number, number, number];
  const [y, mo, d, h, mi, s] = numbers;
  // A lower-case "t" needs the zone too (layout "2006-1-2t15:4:5.999999999Z07:00"), and so does "T".
  if (match[4] !== undefined && zone === undefined) return undefined;
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  const trimmedFraction = fraction === undefined ? '' : trimTrailing(fraction, '0');
  const offset = zone === undefined || zone === 'Z' || zone === '+00:00' || zone === '-00:00' ? 'Z' : zone;
  return `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}${trimmedFraction ? `.${trimmedFraction}` : ''}${offset}`;
}

let lastText: string | undefined;
let lastResolved: Resolved;

/** One implicit type for every non-string plain scalar: resolve computes, construct reuses the result. */
const plainScalar = new jsYaml.Type('tag:yaml.org,2002:kubectl-plain', {
  kind: 'scalar',
  resolve: (data: string) => {
    const resolved = resolvePlainScalar(data);
    if (resolved === undefined) return false;
    lastText = data;
    lastResolved = resolved;
    return true;
  },
  construct: (data: string) => {
    const resolved = data === lastText ? lastResolved : resolvePlainScalar(data);
    // Let go at once: a long scalar is a slice of the file's text, which it would keep alive until the next parse.
    lastText = undefined;
    // ±Infinity and NaN stay numbers: the model reports them where a number is typed (JSON cannot carry them).
    return resolved?.value;
  },
});

// Explicit tags (`!!int 5`): accepted with the same reading.
function explicit(tag: string, accepts: (value: unknown) => boolean): jsYaml.Type {
  return new jsYaml.Type(`tag:yaml.org,2002:${tag}`, {
    kind: 'scalar',
    resolve: (data: string | null) => data === null || accepts(resolvePlainScalar(data)?.value),
    construct: (data: string | null) => (data === null ? null : resolvePlainScalar(data)?.value),
  });
}

const jsYamlTypes = (jsYaml as unknown as { types: { merge: jsYaml.Type } }).types;

/** The schema manifests are parsed with: YAML 1.1 scalars as kubectl reads them, merge keys applied. */
export const KUBECTL_SCHEMA = jsYaml.FAILSAFE_SCHEMA.extend({
  implicit: [jsYamlTypes.merge, plainScalar],
  explicit: [
    explicit('bool', (value) => typeof value === 'boolean'),
    explicit('int', (value) => typeof value === 'number' && Number.isInteger(value)),
    explicit('float', (value) => typeof value === 'number'),
    explicit('null', (value) => value === null),
  ],
});
