// The parts of a finding's key that are read from its object (finding-key.ts says what a key is):
// the field, with containers named rather than counted and the List around the object left out,
// and what the probe checks. Read when a finding is located, before its object is let go; loads no
// crypto (a short lint, the pre-commit case, never needs it).
import { createRequire } from 'node:module';
import type { Finding } from '../engine/finding.js';
import { valueAt } from '../model/pointer.js';

/** The probe a pointer leads into. */
const PROBE_PREFIX = /^.*?\/(?:livenessProbe|readinessProbe|startupProbe)(?=\/|$)/;
/** A List's item: the object's place in the document, which reordering changes. */
const LIST_ITEM = /^\/items\/\d+(?=\/|$)/;

/** What of the key is read from the object: taken when the finding is located, before its documents are let go. */
export interface KeyedPlace {
  /** The pointer with containers named (fieldPath). */
  field: string;
  /** What the probe checks, as canonical JSON ('' when the finding is not in a probe). */
  probeValues: string;
}

/** The object-dependent parts of a finding's key, read from its document. */
export function keyedPlace(finding: Pick<Finding, 'pointer' | 'resource'>): KeyedPlace {
  const document = finding.resource.document;
  return { field: fieldPath(finding.pointer, document), probeValues: probeCheck(finding.pointer, document) };
}

/** The pointer with containers named instead of counted, and the List's item index left out. */
export function fieldPath(pointer: string, document: unknown): string {
  // A scan, not a replace with a callback: this runs for every finding a fingerprinting report keeps.
  const parts: string[] = [];
  let copied = 0;
  for (let at = pointer.indexOf('/', 1); at !== -1 && at < pointer.length; at = pointer.indexOf('/', at + 1)) {
    const segmentStart = pointer.lastIndexOf('/', at - 1) + 1;
    if (!CONTAINER_LISTS.has(pointer.slice(segmentStart, at))) continue;
    let end = at + 1;
    while (end < pointer.length && pointer.charCodeAt(end) >= 48 && pointer.charCodeAt(end) <= 57) end++;
    if (end === at + 1 || (end < pointer.length && pointer.charCodeAt(end) !== 47)) continue;
    const name = valueAt(document, `${pointer.slice(0, end)}/name`);
    if (typeof name !== 'string') continue;
    parts.push(pointer.slice(copied, at + 1), name.replace(/~/g, '~0').replace(/\//g, '~1'));
    copied = end;
  }
  const path = copied === 0 ? pointer : parts.join('') + pointer.slice(copied);
  return path.startsWith('/items/') ? path.replace(LIST_ITEM, '') : path;
}

/** The lists of a pod spec whose items are containers, named by their `name`. */
const CONTAINER_LISTS: ReadonlySet<string> = new Set(['containers', 'initContainers', 'ephemeralContainers']);

/** The handlers a probe may have: what it checks. */
const HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'] as const;

/**
 * What the probe the pointer leads into checks, as canonical JSON (its handler, defaulted as the API server
 * defaults it: SetDefaults_HTTPGetAction), '' when none. Its numbers are left out: tuning a
 * probe's timing (fixing one of its findings) leaves its other findings old; making it check
 * something else makes them new, as they are about another probe.
 */
function probeCheck(pointer: string, document: unknown): string {
  const prefix = PROBE_PREFIX.exec(pointer)?.[0];
  if (prefix === undefined) return '';
  const probe = valueAt(document, prefix);
  if (probe === null || typeof probe !== 'object' || Array.isArray(probe)) return '';
  // A probe's findings share its text: made once per probe.
  const known = CHECKS.get(probe);
  if (known !== undefined) return known;
  const made = checkText(probe as Record<string, unknown>);
  CHECKS.set(probe, made);
  return made;
}

const CHECKS = new WeakMap<object, string>();

function checkText(probe: Record<string, unknown>): string {
  const check: Record<string, unknown> = {};
  for (const handler of HANDLERS) {
    const value = probe[handler];
    if (value === undefined || value === null) continue;
    check[handler] =
      handler === 'httpGet' && typeof value === 'object' && !Array.isArray(value)
        ? { ...value, path: (value as { path?: unknown }).path || '/', scheme: (value as { scheme?: unknown }).scheme || 'HTTP' }
        : value;
  }
  // The text itself where it is short (the key's parts are hashed together anyway), a hash where a
  // check is long enough that a copy per finding would weigh.
  const text = canonicalJson(check);
  return text.length <= 512 ? text : sha256(text);
}

/** The most nodes of a probe a key reads: a probe is a few dozen; an object built to be costly stops here. */
const MAX_NODES = 10_000;

/** JSON with object keys sorted at every level: the same values, the same text (bounded, see MAX_NODES). */
function canonicalJson(root: unknown): string {
  let budget = MAX_NODES;
  const text = (value: unknown): string => {
    if (--budget < 0) return '"…"';
    if (Array.isArray(value)) return `[${value.map(text).join(',')}]`;
    if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${text(item)}`).join(',')}}`;
    }
    return JSON.stringify(value) ?? 'null';
  };
  return text(root);
}

/** Loaded on the rare long check only: a short lint loads no crypto. */
function sha256(text: string): string {
  // Node 22.3 and later hand the module over as it is; an older 22 has require through node:module.
  const crypto = process.getBuiltinModule?.('node:crypto') ?? createRequire(import.meta.url)('node:crypto');
  return crypto.hash('sha256', text, 'hex');
}
