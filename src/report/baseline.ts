// A baseline: the findings a repository already had when it adopted probe-lint, recorded once and
// reviewed like code, so that a run fails only on what is new. Entries are counted by key
// (finding-key.ts), as ESLint counts its bulk suppressions: where one key stands for several
// findings (an object rendered by two overlays), that many are taken as old and the rest are new.
import { findingKey } from './finding-key.js';
import { describeResource } from '../model/resource.js';
import type { BaselineEntry, LocatedFinding } from './located.js';

export type { BaselineEntry } from './located.js';

const FORMAT_VERSION = 1;

export interface Baseline {
  entries: BaselineEntry[];
}

/** A baseline file that cannot be used: the message names the file and what is wrong. */
export class BaselineError extends Error {}

/** Today's findings as a baseline, one entry per key, sorted for stable diffs. */
export function baselineOf(findings: readonly LocatedFinding[]): Baseline {
  const byKey = new Map<string, BaselineEntry>();
  for (const finding of findings) {
    const key = findingKey(finding);
    const known = byKey.get(key);
    if (known !== undefined) known.count++;
    else
      byKey.set(key, {
        key,
        rule: finding.rule,
        object: describeResource(finding.identity),
        container: finding.container ?? null,
        file: finding.file ?? null,
        count: 1,
      });
  }
  return { entries: sortedEntries([...byKey.values()]) };
}

/** The file's text: a version, then one entry per line's worth of fields, keys sorted. */
export function baselineText(baseline: Baseline): string {
  return `${JSON.stringify({ version: FORMAT_VERSION, tool: 'probe-lint', entries: baseline.entries }, null, 2)}\n`;
}

/** Reads a baseline file's text; anything else is a BaselineError that names `file` and the entry. */
export function parseBaseline(text: string, file: string): Baseline {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // Only where: the parser's own message quotes the text, and a baseline path may lead anywhere.
    const at = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new BaselineError(`${file}: not JSON${at === undefined ? '' : ` (at character ${at})`}`);
  }
  if (!isRecord(parsed) || parsed.version !== FORMAT_VERSION || !Array.isArray(parsed.entries))
    throw new BaselineError(`${file}: not a probe-lint baseline of version ${FORMAT_VERSION} (an object with "version": ${FORMAT_VERSION} and "entries")`);
  const entries = parsed.entries.map((entry: unknown, index: number): BaselineEntry => {
    if (
      !isRecord(entry) ||
      typeof entry.key !== 'string' ||
      !/^[0-9a-f]{64}$/.test(entry.key) ||
      typeof entry.rule !== 'string' ||
      typeof entry.object !== 'string' ||
      !(entry.container === null || typeof entry.container === 'string') ||
      !(entry.file === null || entry.file === undefined || typeof entry.file === 'string') ||
      !Number.isSafeInteger(entry.count) ||
      (entry.count as number) < 1
    )
      throw new BaselineError(`${file}: entries[${index}] is not an entry (key: 64 hex digits, rule, object, container, file, count ≥ 1)`);
    return {
      key: entry.key,
      rule: entry.rule,
      object: entry.object,
      container: entry.container,
      file: entry.file ?? null,
      count: entry.count as number,
    };
  });
  return { entries };
}

export interface BaselineSplit {
  /** Findings not in the baseline: what the run is judged by. */
  fresh: LocatedFinding[];
  /** Findings the baseline holds: shown apart, never counted for the exit code. */
  baselined: LocatedFinding[];
  /** Entries (with how many of their findings) no longer found. */
  fixed: BaselineEntry[];
}

/** Sorts findings into new and old, in report order; what is left of the baseline is fixed. */
export function splitByBaseline(findings: readonly LocatedFinding[], baseline: Baseline): BaselineSplit {
  const left = new Map<string, number>();
  for (const entry of baseline.entries) left.set(entry.key, (left.get(entry.key) ?? 0) + entry.count);
  const fresh: LocatedFinding[] = [];
  const baselined: LocatedFinding[] = [];
  for (const finding of findings) {
    const key = findingKey(finding);
    const count = left.get(key) ?? 0;
    if (count > 0) {
      left.set(key, count - 1);
      baselined.push(finding);
    } else fresh.push(finding);
  }
  const fixed: BaselineEntry[] = [];
  for (const entry of baseline.entries) {
    const gone = Math.min(entry.count, left.get(entry.key) ?? 0);
    if (gone === 0) continue;
    left.set(entry.key, (left.get(entry.key) ?? 0) - gone);
    fixed.push({ ...entry, count: gone });
  }
  return { fresh, baselined, fixed };
}

/** The baseline without what was fixed (--prune-baseline): new findings are never added. */
export function prunedBaseline(baseline: Baseline, fixed: readonly BaselineEntry[]): Baseline {
  const gone = new Map<string, number>();
  for (const entry of fixed) gone.set(entry.key, (gone.get(entry.key) ?? 0) + entry.count);
  const entries: BaselineEntry[] = [];
  for (const entry of baseline.entries) {
    const drop = Math.min(entry.count, gone.get(entry.key) ?? 0);
    gone.set(entry.key, (gone.get(entry.key) ?? 0) - drop);
    if (entry.count > drop) entries.push({ ...entry, count: entry.count - drop });
  }
  return { entries: sortedEntries(entries) };
}

function sortedEntries(entries: BaselineEntry[]): BaselineEntry[] {
  return entries.sort((a, b) => compare(a.file ?? '', b.file ?? '') || compare(a.object, b.object) || compare(a.rule, b.rule) || compare(a.key, b.key));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
