import { DEFAULT_DENSE_PODS_PER_NODE, type ClusterFacts } from './cluster-facts.js';
import type { ProbeFeatureGate } from '../model/feature-gates.js';
import type { Severity } from './rule.js';

/** Looked for in the working directory and its parents, in this order. */
export const CONFIG_FILE_NAMES = ['.probe-lint.yaml', '.probe-lint.yml'] as const;

export type RuleSetting = 'off' | Severity | { enabled?: boolean; severity?: Severity; options?: Record<string, unknown> };

export interface IgnoreEntry {
  kind?: string;
  namespace?: string;
  name?: string;
  container?: string;
  rules?: string[];
  reason: string;
  /** YYYY-MM-DD */
  expires?: string;
}

export type WebhookMode = 'enforce' | 'warn' | 'off';
export type NamespaceLabelTrust = 'tighten-only' | 'trusted' | 'ignored';

export interface WebhookConfig {
  mode?: WebhookMode;
  namespaceLabels?: NamespaceLabelTrust;
  annotationsInEnforce?: boolean;
  mutateTemplates?: boolean;
  coveredByPolicies?: boolean;
  fixAtAdmission?: string[];
  maxContainersPerReview?: number;
  maxWorkPerReview?: number;
  namespaces?: Record<string, { mode?: WebhookMode; [optIn: string]: unknown }>;
  /** The rules' admission opt-ins (e.g. injectStartupProbe), by their config key. */
  [optIn: string]: unknown;
}

export interface ProbeLintConfig {
  rules?: Record<string, RuleSetting>;
  cluster?: {
    podsPerNode?: number;
    densePodsPerNode?: number;
    denseCapacityFraction?: number;
    refreshIntervalSeconds?: number;
    /** The alpha feature gates the clusters have on (API server and kubelets). */
    featureGates?: ProbeFeatureGate[];
    guard?: { deadlineSeconds?: number; backoffInitialSeconds?: number; backoffMaxSeconds?: number; failureThreshold?: number; openSeconds?: number };
  };
  ignore?: IgnoreEntry[];
  /** Paths never linted: globs relative to the directory of `file`. */
  exclude?: string[];
  /** What input errors of a kind mean for the run: by default every one is an error (exit 2). */
  inputErrors?: { network?: InputErrorOutcome };
  /** The baseline file, relative to the directory of `file`. */
  baseline?: string;
  /** The config file it was read from, absolute (set by the loader, not written in the file). */
  file?: string;
  suppression?: { annotations?: boolean; annotationRules?: string[] };
  webhook?: WebhookConfig;
}

export type InputErrorOutcome = 'error' | 'warning' | 'ignore';

/** A config file that cannot be used: the message names the file, line and key. */
export class ConfigError extends Error {}

/** Effective cluster density threshold from config. */
export function densePodsPerNode(config: ProbeLintConfig): number {
  return config.cluster?.densePodsPerNode ?? DEFAULT_DENSE_PODS_PER_NODE;
}

/** Cluster facts without a live cluster: a --pods-per-node flag, else the config, else unknown. */
export function clusterFactsFrom(config: ProbeLintConfig, podsPerNodeFlag: number | undefined): ClusterFacts {
  const dense = densePodsPerNode(config);
  if (podsPerNodeFlag !== undefined) return { podsPerNode: podsPerNodeFlag, densePodsPerNode: dense, source: 'flag' };
  if (config.cluster?.podsPerNode !== undefined) return { podsPerNode: config.cluster.podsPerNode, densePodsPerNode: dense, source: 'config' };
  return { podsPerNode: undefined, densePodsPerNode: dense, source: 'unknown' };
}

/** The alpha feature gates the config says the clusters have on: none unless it says so. */
export function featureGatesOn(config: ProbeLintConfig): ReadonlySet<ProbeFeatureGate> {
  return new Set(config.cluster?.featureGates ?? []);
}

/** Whether a rule setting leaves the rule on ("off" and `enabled: false` turn it off). */
export function ruleEnabled(setting: RuleSetting | undefined): boolean {
  if (setting === undefined) return true;
  if (setting === 'off') return false;
  // Stryker disable next-line ConditionalExpression,StringLiteral: a severity string has no "enabled", so the second test reads true for it too.
  return typeof setting === 'string' || setting.enabled !== false;
}

/** The severity a rule setting imposes, if any. */
export function severityOverride(setting: RuleSetting | undefined): Severity | undefined {
  if (setting === undefined || setting === 'off') return undefined;
  return typeof setting === 'string' ? setting : setting.severity;
}

/** The options a rule setting gives (merged over the rule's defaults by the engine). */
export function ruleOptions(setting: RuleSetting | undefined): Record<string, unknown> {
  return typeof setting === 'object' ? (setting.options ?? {}) : {};
}
