import type { Container } from 'kubernetes-types/core/v1.js';
import type { DecodeIssue } from '../model/decode.js';
import type { SourceIssue } from '../model/document.js';
import type { EffectiveProbe, ProbeType } from '../model/effective-probe.js';
import type { ContainerRole, ContainerSite, PodSite } from '../model/pod-site.js';
import type { Position } from '../model/position.js';
import type { WorkBudget } from '../model/work-budget.js';
import type { ProbeFeatureGate } from '../model/feature-gates.js';
import type { ClusterFacts } from './cluster-facts.js';
import type { RunFacts } from './run-facts.js';
import type { ContainerEvidence, FindingEvidence } from './runtime-evidence.js';
import { celMessage } from './cel.js';

export type Severity = 'error' | 'warning' | 'info';

/** One RFC 6902 operation. Fixes are lists of these, relative to the document. */
export type PatchOperation = { op: 'add' | 'replace' | 'test'; path: string; value: unknown } | { op: 'remove'; path: string };

/**
 * `fix`: the change has one right answer and keeps what the workload does (removing a field the
 * API server rejects); `--fix` applies it. `suggestion`: the change alters behaviour (adds a
 * startup probe, loosens liveness); applied only when asked (`--fix-type suggestion`, or the
 * mutating webhook's opt-in).
 */
export type FixKind = 'fix' | 'suggestion';

/**
 * A message in two lengths, with `{name}` placeholders filled from the report's data. `short`
 * (≤ 120 characters where possible): what is wrong, the numbers, what to do — for admission
 * warnings and annotations. `long`: the same with why it matters, for reports and docs.
 */
export interface MessageText {
  short: string;
  long: string;
}

/** A JSON Schema for one option (draft-07 subset used by the config schema). */
export type OptionSchema = Readonly<Record<string, unknown>> & { description: string };

export interface RuleOptions<Options> {
  defaults: Options;
  schema: { readonly [Key in keyof Options]: OptionSchema };
}

/** Which containers a rule looks at. */
export interface RuleScope {
  roles: readonly ContainerRole[];
  /** Only containers that run until stopped (ContainerSite.longRunning: not in Jobs or CronJobs, restart policy Always). */
  longRunningOnly?: true;
}

/** Containers the kubelet probes: regular containers and restartable init containers (sidecars). */
export const PROBED_CONTAINERS: RuleScope = { roles: ['container', 'sidecar'] };

/**
 * The mutating webhook may apply the rule's fix at admission where the platform opts in: by the
 * config key `webhook.<configKey>` (or per namespace), the namespace label, or the object's
 * annotation of the same name as the label.
 */
export interface AdmissionOptIn {
  configKey: string;
  label: string;
  description: string;
}

/**
 * CEL for one of the rule's messages, written from its short template (`celMessage`): `data` gives each
 * placeholder as CEL of a string or an int. The policies' words are the engine's, by construction.
 */
export type CelMessages<MessageId extends string> = (id: MessageId, data?: Readonly<Record<string, string>>) => string;

/**
 * The rule as CEL in the admission policies (`probe-lint policies`), which the API server runs on
 * the object after decoding, defaulting and validation. `problems` gives CEL for a list of strings,
 * one per problem, each the rule's short message made by `message`; empty when the rule has nothing
 * to say. It runs for each container `c` of `over`, or once for the object.
 */
export interface RulePolicyCheck<MessageId extends string = string> {
  /** Each probed container (sidecars too), each long-running regular container, each long-running one of either, or the object once. */
  over: 'probed' | 'longRunning' | 'longRunningProbed' | 'object';
  problems: (message: CelMessages<MessageId>) => string;
  /** The severity of what `problems` reports, when that is not the rule's default (it reports only its warning case). */
  severity?: Severity;
  /** Problems reported as infos (written to the audit log, never shown), beside those at `severity`. */
  infoProblems?: (message: CelMessages<MessageId>) => string;
  /** What the engine sees that the CEL does not, when anything (the README lists it). */
  limits?: string;
  /**
   * The messages the CEL never writes: findings the engine makes from what CEL cannot read (a shell
   * script, a path an env variable sets), which `limits` explains. The webhook keeps reporting them
   * beside the policies; every other message the policies write as the engine does.
   */
  unexpressed?: readonly NoInfer<MessageId>[];
  /**
   * For rules with an admission opt-in: the mutating policy's change. `needed` gives the CEL, over
   * the container the CEL expression `container` names, of whether it needs the change; `patches` gives the CEL of each JSONPatch operation on the container that the
   * CEL expression `container` names, at the JSON Pointer expression `path`, whose CEL object type
   * is `type` (`Object.spec.containers`).
   */
  mutation?: { needed: (container: string) => string; patches: (container: string, path: string, type: string) => string[] };
}

/** Why a rule has no CEL form. */
export interface RulePolicyAbsent {
  notExpressible: string;
}

export type RulePolicy<MessageId extends string = string> = RulePolicyCheck<MessageId> | RulePolicyAbsent;

export interface RuleMeta<Options, MessageId extends string> {
  /** Stable id: users put it in config and annotations. */
  id: string;
  /** The severity of its findings unless the config overrides it. */
  severity: Severity;
  /** When one finding may differ from `severity`, and why (shown by `probe-lint rules`). */
  severityNote?: string;
  /** One line: what the rule flags. */
  summary: string;
  /** How to resolve a finding, in a sentence or two. */
  remediation: string;
  messages: Readonly<Record<MessageId, MessageText>>;
  /** The containers looked at by `checkContainer`. */
  scope?: RuleScope;
  /** Whether findings carry a fix, and which kind. */
  fix?: FixKind;
  options?: RuleOptions<Options>;
  admission?: { optIn: AdmissionOptIn };
  /**
   * The rule reports values the API server could not decode. Every other rule is never called for
   * a pod spec or container holding one: nothing is built on a value the cluster would reject.
   */
  readsUndecodable?: true;
  /** The rule reads runtime evidence (audit only): its findings come first, with the static findings on the same container as their likely cause. */
  readsEvidence?: true;
  /** The rule's messages promise when the kubelet acts: reports that can draw pictures show the container's timeline beside it. */
  timing?: true;
  /** The rule in the admission policies, or why it has none. */
  policy: RulePolicy<MessageId>;
}

export interface Report<MessageId extends string> {
  messageId: MessageId;
  data?: Readonly<Record<string, string | number>>;
  pointer: string;
  /** Overrides the rule's default severity for this finding (e.g. depends on cluster density). */
  severity?: Severity;
  fix?: PatchOperation[];
  /** Exact position when the finding is about source text rather than a field (duplicate keys). */
  position?: Position;
  /** What the kubelet did, for a runtime finding: printed by --format json. */
  evidence?: FindingEvidence;
}

export interface PodSiteContext<MessageId extends string> {
  site: PodSite;
  /** Values of the pod spec and metadata that the API server could not decode (rules with `readsUndecodable`). */
  decodeIssues: readonly DecodeIssue[];
  /** The ids of every rule probe-lint has, enabled or not. */
  knownRules: ReadonlySet<string>;
  report: (report: Report<MessageId>) => void;
}

export interface ContainerContext<Options, MessageId extends string> {
  site: PodSite;
  container: ContainerSite;
  /** Shortcut to `container.container`. */
  spec: Container;
  /** The container's probes, defaults applied, in startup, liveness, readiness order. */
  probes: EffectiveProbe[];
  probe: (type: ProbeType) => EffectiveProbe | undefined;
  /** The probes whose numbers the API server accepts (none negative): what a window or a comparison of times is built on. */
  timedProbes: EffectiveProbe[];
  /** One of them, by type. */
  timedProbe: (type: ProbeType) => EffectiveProbe | undefined;
  options: Options;
  cluster: ClusterFacts;
  /** The alpha feature gates the config says the clusters have on (cluster.featureGates). */
  gatesOn: ReadonlySet<ProbeFeatureGate>;
  run: RunFacts;
  /** What the kubelet did with this container's probes (audit only; undefined elsewhere). */
  evidence: ContainerEvidence | undefined;
  /** The window the evidence covers, e.g. "1h" (audit only). */
  evidenceWindow: string | undefined;
  /** The resource's work budget: a reader of untrusted text (exec-command.ts) draws from it as it reads. */
  budget: WorkBudget;
  report: (report: Report<MessageId>) => void;
}

export interface DocumentContext<MessageId extends string> {
  /** Issues of the document's source text (duplicate keys…), by kind. */
  sourceIssues: readonly SourceIssue[];
  report: (report: Report<MessageId>) => void;
}

export interface Rule<Options = unknown, MessageId extends string = string> {
  meta: RuleMeta<Options, MessageId>;
  /** Called once per container in the rule's scope. */
  checkContainer?(context: ContainerContext<Options, MessageId>): void;
  /** Called once per pod spec. */
  checkPodSite?(context: PodSiteContext<MessageId>): void;
  /** Called once per source document. */
  checkDocument?(context: DocumentContext<MessageId>): void;
}

/** A rule of any options and messages, as the engine and registry hold it. */
// The engine only passes each rule its own options and message ids back: `any` is confined to this alias.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRule = Rule<any, string>;

/** Typed helper so each rule module gets its options and message ids checked. */
export function defineRule<Options = Record<string, never>, MessageId extends string = string>(rule: Rule<Options, MessageId>): Rule<Options, MessageId> {
  return rule;
}

/** Fills `{name}` placeholders; a placeholder without data is a bug in the rule, so it throws. */
export function formatMessage(template: string, data: Readonly<Record<string, string | number>> | undefined): string {
  const parts = compiledTemplate(template);
  let text = parts[0]!;
  for (let index = 1; index < parts.length; index += 2) {
    const value = data?.[parts[index]!];
    if (value === undefined) throw new Error(`message placeholder {${parts[index]}} has no data`);
    text += String(value) + parts[index + 1]!;
  }
  return text;
}

/** Templates split once into literal text and placeholder names (odd indexes): every finding formats two. */
const compiledTemplates = new Map<string, string[]>();

function compiledTemplate(template: string): string[] {
  let parts = compiledTemplates.get(template);
  // Stryker disable next-line ConditionalExpression: a cache; splitting again gives the same parts.
  if (parts === undefined) compiledTemplates.set(template, (parts = template.split(/\{(\w+)\}/)));
  return parts;
}

/** The rule's messages as CEL, for its policy. */
export function celMessagesOf(rule: AnyRule): CelMessages<string> {
  return (id, data) => {
    const text = (rule.meta.messages as Record<string, MessageText | undefined>)[id];
    if (text === undefined) throw new Error(`${rule.meta.id}'s policy names an unknown message id "${id}"`);
    return celMessage(text.short, data);
  };
}
