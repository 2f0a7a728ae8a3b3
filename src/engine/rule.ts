import type { Container } from 'kubernetes-types/core/v1.js';
import type { EffectiveProbe } from '../model/effective-probe.js';
import type { ContainerSite, PodSite } from '../model/pod-site.js';
import type { Position } from '../source/line-index.js';
import type { ClusterFacts } from './cluster-facts.js';
import type { RunFacts } from './run-facts.js';

export type Severity = 'error' | 'warning' | 'info';
export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];

/** One RFC 6902 operation. Fixes are lists of these, relative to the document. */
export type PatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string };

export interface RuleMeta<Options = Record<string, never>> {
  /** Stable id: users put it in config and annotations. */
  id: string;
  severity: Severity;
  /** One line: what the rule flags. */
  summary: string;
  /** Whether findings carry a `fix`. */
  fixable: boolean;
  /** Default option values; the config schema (schema/config.schema.json) validates overrides. */
  defaultOptions: Options;
}

export interface Report {
  pointer: string;
  message: string;
  /** Overrides the rule's default severity for this finding (e.g. depends on cluster density). */
  severity?: Severity;
  fix?: PatchOperation[];
  /** Exact position when the finding is about source text rather than a field (duplicate keys). */
  position?: Position;
}

export interface ContainerContext<Options> {
  site: PodSite;
  container: ContainerSite;
  /** Shortcut to `container.container`. */
  spec: Container;
  /** The container's probes, defaults applied, in startup, liveness, readiness order. */
  probes: EffectiveProbe[];
  probe(type: EffectiveProbe['type']): EffectiveProbe | undefined;
  options: Options;
  cluster: ClusterFacts;
  run: RunFacts;
  report(report: Report): void;
}

export interface DocumentContext {
  duplicateKeys: readonly { key: string; position: Position }[];
  report(report: Report): void;
}

export interface Rule<Options = any> {
  meta: RuleMeta<Options>;
  /** Called once per container of every pod site. */
  checkContainer?(context: ContainerContext<Options>): void;
  /** Called once per source document (for source-level problems such as duplicate keys). */
  checkDocument?(context: DocumentContext): void;
}

/** Typed helper so each rule module gets its options type checked. */
export function defineRule<Options>(rule: Rule<Options>): Rule<Options> {
  return rule;
}
