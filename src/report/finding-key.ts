// What identifies a finding across edits: the rule and message, the object (kind, namespace, name),
// the container, the field (its pointer with container indexes replaced by names, and without the
// List around the object) and what the probe checks. Never the file or the line: editing
// other lines, reordering documents or containers, moving an object to another file or rendering a
// chart again keeps the key; making the probe check something else makes a new one.
// The baseline (baseline.ts) and every format's fingerprint (fingerprint.ts) are built on it.
import { hash } from 'node:crypto';
import type { Finding } from '../engine/finding.js';
import { keyedPlace, type KeyedPlace } from './finding-place.js';

type Keyed = Pick<Finding, 'rule' | 'messageId' | 'identity' | 'container' | 'pointer' | 'resource'> & Partial<KeyedPlace>;

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
  return keyOfText(JSON.stringify(parts));
}

/**
 * The key of parts already JSON-encoded (fingerprint.ts counts repeats on that text). One-shot: a
 * report hashes once per finding, and in a CLI run that is the first and only run of this code; a
 * Hash object per call cost three times as much there (45 against 15 ms for 27,000, cold).
 */
export function keyOfText(text: string): string {
  return hash('sha256', text, 'hex');
}
