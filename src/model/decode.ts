// The API server decodes an object's JSON into typed Go structs (k8s.io/api core/v1). A value that
// does not fit its Go type — a string where an int32 is expected, a number beyond int32 or with a
// fraction, a bool among the strings of exec.command — fails the decode of the whole object. These
// checks cover the fields probe-lint reads, so that rules only ever see values the API server could
// decode; what it could not is reported once (probe-field-invalid) and nothing is built on it.
// null is accepted everywhere: Go's encoding/json leaves the zero value.
import { joinPointer } from './pointer.js';

type Scalar = 'int32' | 'int64' | 'string' | 'bool' | 'intOrString';
type FieldType = Scalar | { fields: Readonly<Record<string, FieldType>> } | { list: FieldType };

export interface DecodeIssue {
  /** Pointer to the value, inside the document. */
  pointer: string;
  /** Where it is, from the probe or pod spec, for messages: `livenessProbe.periodSeconds`. */
  path: string;
  /** The Go type, in words: "a whole number (int32)". */
  expected: string;
  value: unknown;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

const PROBE: FieldType = {
  fields: {
    exec: { fields: { command: { list: 'string' } } },
    httpGet: {
      fields: {
        path: 'string',
        port: 'intOrString',
        host: 'string',
        scheme: 'string',
        httpHeaders: { list: { fields: { name: 'string', value: 'string' } } },
      },
    },
    tcpSocket: { fields: { port: 'intOrString', host: 'string' } },
    grpc: { fields: { port: 'int32', service: 'string' } },
    initialDelaySeconds: 'int32',
    timeoutSeconds: 'int32',
    periodSeconds: 'int32',
    successThreshold: 'int32',
    failureThreshold: 'int32',
    terminationGracePeriodSeconds: 'int64',
  },
};

/** The fields of a container that probe-lint reads. */
export const CONTAINER_TYPE: FieldType = {
  fields: {
    name: 'string',
    image: 'string',
    restartPolicy: 'string',
    ports: { list: { fields: { name: 'string', containerPort: 'int32', protocol: 'string' } } },
    env: { list: { fields: { name: 'string', value: 'string' } } },
    livenessProbe: PROBE,
    readinessProbe: PROBE,
    startupProbe: PROBE,
  },
};

/** The fields of a pod spec that probe-lint reads, containers aside (decoded one by one). */
export const POD_SPEC_TYPE: FieldType = {
  fields: {
    hostNetwork: 'bool',
    restartPolicy: 'string',
    terminationGracePeriodSeconds: 'int64',
    // Stryker disable ObjectLiteral: a list item of type {} is a mapping without fields, as { fields: {} } is.
    containers: { list: { fields: {} } },
    initContainers: { list: { fields: {} } },
    ephemeralContainers: { list: { fields: {} } },
    // Stryker restore ObjectLiteral
  },
};

/** Every value under `value` that the API server could not decode into `type`. */
export function decodeIssues(value: unknown, type: FieldType, pointer: string, path: string): DecodeIssue[] {
  const issues: DecodeIssue[] = [];
  check(value, type, { pointer, path, segments: [] }, issues);
  return issues;
}

/** Where the walk is: the pointer and path strings are built only for an issue, not for every value visited. */
interface Place {
  pointer: string;
  path: string;
  segments: (string | number)[];
}

function issueAt(place: Place, expected: string, value: unknown): DecodeIssue {
  let pointer = place.pointer;
  let path = place.path;
  for (const segment of place.segments) {
    pointer = joinPointer(pointer, segment);
    path = typeof segment === 'number' ? `${path}[${segment}]` : path === '' ? segment : `${path}.${segment}`;
  }
  return { pointer, path, expected, value };
}

function check(value: unknown, type: FieldType, place: Place, issues: DecodeIssue[]): void {
  if (value === null || value === undefined) return;
  if (typeof type === 'string') {
    if (!fitsScalar(value, type)) issues.push(issueAt(place, describeType(type), value));
    return;
  }
  if ('list' in type) {
    if (!Array.isArray(value)) {
      issues.push(issueAt(place, 'a list', value));
      return;
    }
    // Stryker disable next-line EqualityOperator: one past the end is undefined, which checks as nothing.
    for (let index = 0; index < value.length; index++) {
      place.segments.push(index);
      check(value[index], type.list, place, issues);
      place.segments.pop();
    }
    return;
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    issues.push(issueAt(place, 'a mapping', value));
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key in type.fields) {
    if (!Object.hasOwn(record, key)) continue;
    place.segments.push(key);
    check(record[key], type.fields[key]!, place, issues);
    place.segments.pop();
  }
}

function fitsScalar(value: unknown, type: Scalar): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'bool':
      return typeof value === 'boolean';
    case 'int32':
      return isInt32(value);
    case 'int64':
      return isInt64(value);
    case 'intOrString':
      // intstr.IntOrString: a JSON string, or a number that decodes into int32.
      return typeof value === 'string' || isInt32(value);
  }
}

/** A number the API server decodes into an int32 field: checks of its value apply only to these (others are undecodable). */
export function isInt32(value: unknown): value is number {
  return isInteger(value) && value >= INT32_MIN && value <= INT32_MAX;
}

/** A number the API server decodes into an int64 field. The YAML reader keeps every literal's side of the bounds (yaml11-schema.ts). */
export function isInt64(value: unknown): value is number {
  return isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63;
}

/** A JSON number without a fraction. (kubectl sends a YAML 10.0 as 10, so it is whole too.) */
function isInteger(value: unknown): value is number {
  return Number.isInteger(value);
}

function describeType(type: Scalar): string {
  switch (type) {
    case 'string':
      return 'a string';
    case 'bool':
      return 'true or false';
    case 'int32':
      return `a whole number from ${INT32_MIN} to ${INT32_MAX} (int32)`;
    case 'int64':
      return 'a whole number (int64)';
    case 'intOrString':
      return 'a port number (int32) or a port name (string)';
  }
}

/** How a value that failed to decode reads in a message: as the user wrote it, in YAML terms. */
export function describeValue(value: unknown): string {
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return '.nan (not a number, which JSON cannot carry)';
    // Stryker disable next-line EqualityOperator: an infinity is never 0.
    if (!Number.isFinite(value)) return `${value > 0 ? '' : '-'}.inf (infinity, which JSON cannot carry)`;
    // Past int64 the digits written are not kept exactly (a double); what matters is the side of the bound.
    if (Number.isInteger(value) && !isInt64(value))
      return `${value > 0 ? 'above' : 'below'} ${value > 0 ? '9223372036854775807' : '-9223372036854775808'}, past int64`;
    return String(value);
  }
  if (typeof value === 'boolean') return `${value} (a boolean: YAML 1.1, which kubectl reads, makes unquoted yes/no/on/off/y/n booleans)`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'a list';
  // Stryker disable next-line ConditionalExpression: undefined, the one other value left, is never decoded.
  if (value !== null && typeof value === 'object') return 'a mapping';
  return String(value);
}
