// What identifies a finding across edits: the rule and message, the object (kind, namespace, name),
// the container, the field (its pointer with container indexes replaced by names, and without the
// List around the object) and a hash of what the probe checks. Never the file or the line: editing
// other lines, reordering documents or containers, moving an object to another file or rendering a
// chart again keeps the key; making the probe check something else makes a new one.
// The baseline (baseline.ts) and every format's fingerprint (fingerprint.ts) are built on it.
import { hash } from 'node:crypto';
import type { Finding } from '../engine/finding.js';
import { valueAt } from '../model/pointer.js';

/** A container of the pod spec by its index in the pointer: `/containers/0`, `/initContainers/2`. */
const CONTAINER_INDEX = /\/(containers|initContainers|ephemeralContainers)\/(\d+)(?=\/|$)/g;
/** The probe a pointer leads into. */
const PROBE_PREFIX = /^.*?\/(?:livenessProbe|readinessProbe|startupProbe)(?=\/|$)/;
/** A List's item: the object's place in the document, which reordering changes. */
const LIST_ITEM = /^\/items\/\d+(?=\/|$)/;

/** What of the key is read from the object: taken when the finding is located, before its documents are let go. */
export interface KeyedPlace {
  /** The pointer with containers named (fieldPath). */
  field: string;
  /** A hash of what the probe checks ('' when the finding is not in a probe). */
  probeValues: string;
}

type Keyed = Pick<Finding, 'rule' | 'messageId' | 'identity' | 'container' | 'pointer' | 'resource'> & Partial<KeyedPlace>;

/** The object-dependent parts of a finding's key, read from its document. */
export function keyedPlace(finding: Pick<Finding, 'pointer' | 'resource'>): KeyedPlace {
  const document = finding.resource.document;
  return { field: fieldPath(finding.pointer, document), probeValues: probeValuesHash(finding.pointer, document) };
}

/** The parts of a finding's key, in order; JSON-encoded and hashed they are its key. */
export function findingKeyParts(finding: Keyed): string[] {
  const place = finding.field !== undefined && finding.probeValues !== undefined ? (finding as KeyedPlace) : keyedPlace(finding);
  return [
    finding.rule,
    finding.messageId,
    finding.identity.kind,
    finding.identity.namespace ?? '',
    finding.identity.name ?? '',
    finding.container ?? '',
    place.field,
    place.probeValues,
  ];
}

/** The key of a finding: what a baseline records and the first fingerprint of it in any report. */
export function findingKey(finding: Keyed): string {
  return keyOfParts(findingKeyParts(finding));
}

/** sha256 of the parts as JSON (a name holding a separator cannot pose as two parts). */
export function keyOfParts(parts: readonly string[]): string {
  return hash('sha256', JSON.stringify(parts), 'hex');
}

/** The pointer with containers named instead of counted, and the List's item index left out. */
export function fieldPath(pointer: string, document: unknown): string {
  const named = pointer.replace(CONTAINER_INDEX, (whole: string, list: string, _index: string, offset: number) => {
    const name = valueAt(document, `${pointer.slice(0, offset)}${whole}/name`);
    return typeof name === 'string' ? `/${list}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}` : whole;
  });
  return named.replace(LIST_ITEM, '');
}

/** The handlers a probe may have: what it checks. */
const HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'] as const;

/**
 * A hash of what the probe the pointer leads into checks (its handler, defaulted as the API server
 * defaults it: SetDefaults_HTTPGetAction), '' when none. Its numbers are left out: tuning a
 * probe's timing (fixing one of its findings) leaves its other findings old; making it check
 * something else makes them new, as they are about another probe.
 */
function probeValuesHash(pointer: string, document: unknown): string {
  const prefix = PROBE_PREFIX.exec(pointer)?.[0];
  if (prefix === undefined) return '';
  const probe = valueAt(document, prefix);
  if (probe === null || typeof probe !== 'object' || Array.isArray(probe)) return '';
  const check: Record<string, unknown> = {};
  for (const handler of HANDLERS) {
    const value = (probe as Record<string, unknown>)[handler];
    if (value === undefined || value === null) continue;
    check[handler] =
      handler === 'httpGet' && typeof value === 'object' && !Array.isArray(value)
        ? { ...value, path: (value as { path?: unknown }).path || '/', scheme: (value as { scheme?: unknown }).scheme || 'HTTP' }
        : value;
  }
  return hash('sha256', canonicalJson(check), 'hex').slice(0, 16);
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
