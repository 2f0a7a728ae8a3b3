import type { LintDocument } from '../model/document.js';
import type { ProbeFeatureGate } from '../model/feature-gates.js';
import { effectiveProbes } from '../model/effective-probe.js';
import { findPodSites, type ContainerRole, type ContainerSite, type PodSite } from '../model/pod-site.js';
import { identityOf, type Resource, type ResourceIdentity } from '../model/resource.js';
import { WorkBudget, WorkBudgetExceeded } from '../model/work-budget.js';
import type { ClusterFacts, ClusterFactsSource } from './cluster-facts.js';
import type { RuntimeEvidence } from './runtime-evidence.js';
import { featureGatesOn, ruleEnabled, ruleOptions, severityOverride, type ProbeLintConfig } from './config.js';
import type { Finding, SuppressedFinding } from './finding.js';
import { formatMessage, type AnyRule, type ContainerContext, type Report, type Severity } from './rule.js';
import { collectRunFacts, type RunFacts } from './run-facts.js';
import { SuppressionPolicy, type SuppressionSubject } from './suppression.js';

export interface EngineOptions {
  config: ProbeLintConfig;
  /** Fixed facts, or a source read once per lint (the webhook's refresher). */
  cluster: ClusterFacts | ClusterFactsSource;
  /** Disregard `probe-lint.dev/ignore` annotations: only the config may exempt. */
  strict?: boolean;
  /** YYYY-MM-DD used to expire config exemptions; today by default. */
  today?: string;
  /** What the kubelet did, per container (audit only): the runtime rules read it. */
  evidence?: RuntimeEvidence;
  /** Work units one resource may take (DEFAULT_WORK_LIMIT): past them its lint stops with what it found. */
  workLimit?: number;
}

/**
 * Work units one resource's lint may take: a unit is a rule run on a container or pod, or about a
 * character or word a reader of untrusted text (exec-command.ts) reads. Readers are linear, so a
 * real object stays far below (the largest Pod the API server stores, 1.5 MiB, read a few times over);
 * a hostile one stops here instead of holding the webhook's event loop for every other tenant.
 */
export const DEFAULT_WORK_LIMIT = 20_000_000;

export interface RuleFailure {
  rule: string;
  resource: Resource;
  error: unknown;
}

/** What a report says of a rule that threw on an object. */
export function ruleFailureMessage(failure: RuleFailure): string {
  const reason = failure.error instanceof Error ? failure.error.message : String(failure.error);
  return `rule ${failure.rule} failed on this object (please report it): ${reason}`;
}

export interface LintResult {
  findings: Finding[];
  suppressed: SuppressedFinding[];
  /** A rule that threw is skipped for that object (fail-open) and listed here. */
  failures: RuleFailure[];
  /** Resources whose lint stopped when its work budget was spent: their findings so far are kept. */
  stopped: StoppedLint[];
  resources: number;
  containers: number;
}

export interface StoppedLint {
  resource: Resource;
  limit: number;
}

/** What a report says of a resource whose lint stopped at its work budget. */
export function stoppedLintMessage(stopped: StoppedLint): string {
  return `the lint of this object stopped after its work budget (${stopped.limit.toLocaleString('en-US')} units): the findings shown are those found before it; the object is far larger or more deeply nested than any probe needs`;
}

/** What a report says of a result's rule failures and stopped lints: one message per resource and cause. */
export function resultProblems(result: LintResult): { resource: Resource; kind: 'rule' | 'limit'; message: string }[] {
  return [
    ...result.failures.map((failure) => ({ resource: failure.resource, kind: 'rule' as const, message: ruleFailureMessage(failure) })),
    ...result.stopped.map((stopped) => ({ resource: stopped.resource, kind: 'limit' as const, message: stoppedLintMessage(stopped) })),
  ];
}

interface ActiveRule {
  rule: AnyRule;
  severity: Severity | undefined;
  options: unknown;
}

const ROLES: readonly ContainerRole[] = ['container', 'sidecar', 'init', 'ephemeral'];

/** Runs the enabled rules over every document, pod site and container, then applies suppressions. */
export class Engine {
  private readonly containerRules: Record<ContainerRole, { longRunning: ActiveRule[]; any: ActiveRule[] }>;
  private readonly siteRules: ActiveRule[];
  private readonly documentRules: ActiveRule[];
  private readonly suppression: SuppressionPolicy;
  private strictVariant: Engine | undefined;
  private readonly knownRules: ReadonlySet<string>;
  private readonly enabledIds: string[];
  private readonly gatesOn: ReadonlySet<ProbeFeatureGate>;

  constructor(
    readonly rules: readonly AnyRule[],
    private readonly options: EngineOptions,
  ) {
    this.knownRules = new Set(rules.map((rule) => rule.meta.id));
    this.gatesOn = featureGatesOn(options.config);
    this.enabledIds = rules.filter((rule) => ruleEnabled(options.config.rules?.[rule.meta.id])).map((rule) => rule.meta.id);
    const active = rules.flatMap((rule): ActiveRule[] => {
      const setting = options.config.rules?.[rule.meta.id];
      if (!ruleEnabled(setting)) return [];
      return [{ rule, severity: severityOverride(setting), options: { ...(rule.meta.options?.defaults ?? {}), ...ruleOptions(setting) } }];
    });
    // Per role, the rules whose scope includes it: this lookup runs for every container of every input.
    // Rules that read runtime evidence are left out where there is none (files, admission): they would only return.
    const byRole = (role: ContainerRole, longRunning: boolean) =>
      active.filter(
        ({ rule }) =>
          // Stryker disable next-line OptionalChaining: a rule with checkContainer declares a scope (the rule contract); the test is for the type.
          rule.checkContainer !== undefined &&
          rule.meta.scope?.roles.includes(role) === true &&
          (longRunning || rule.meta.scope.longRunningOnly !== true) &&
          (rule.meta.readsEvidence !== true || options.evidence !== undefined),
      );
    this.containerRules = Object.fromEntries(
      ROLES.map((role) => [role, { longRunning: byRole(role, true), any: byRole(role, false) }]),
    ) as Engine['containerRules'];
    this.siteRules = active.filter(({ rule }) => rule.checkPodSite !== undefined);
    this.documentRules = active.filter(({ rule }) => rule.checkDocument !== undefined);
    // Read per finding, not once: a webhook runs for weeks, and an exemption must expire on its day.
    const today = options.today !== undefined ? () => options.today! : () => new Date().toISOString().slice(0, 10);
    this.suppression = new SuppressionPolicy(options.config, { strict: options.strict ?? false, today });
  }

  /** This engine disregarding `probe-lint.dev/ignore` annotations (the webhook judges an old object so), built once. */
  asStrict(): Engine {
    if (this.options.strict === true) return this;
    return (this.strictVariant ??= new Engine(this.rules, { ...this.options, strict: true }));
  }

  /** The ids of the rules that run, in registry order. */
  get enabledRuleIds(): string[] {
    return this.enabledIds;
  }

  /** Lints documents. */
  lint(documents: readonly LintDocument[], run: RunFacts = collectRunFacts(documents), workLimit = this.options.workLimit ?? DEFAULT_WORK_LIMIT): LintResult {
    const result: LintResult = { findings: [], suppressed: [], failures: [], stopped: [], resources: 0, containers: 0 };
    const source = this.options.cluster;
    const cluster = 'current' in source ? source.current() : source;
    for (const document of documents) {
      const first = document.resources[0];
      if (first !== undefined && document.sourceIssues?.length) this.checkDocument(first, document, result);
      for (const resource of document.resources) {
        result.resources++;
        const budget = new WorkBudget(workLimit);
        try {
          this.checkResource(resource, budget, run, cluster, result);
        } catch (error) {
          if (!(error instanceof WorkBudgetExceeded)) throw error;
          result.stopped.push({ resource, limit: workLimit });
        }
      }
    }
    return result;
  }

  private checkResource(resource: Resource, budget: WorkBudget, run: RunFacts, cluster: ClusterFacts, result: LintResult): void {
    const identity = identityOf(resource.object);
    for (const site of findPodSites(resource)) {
      const decodable = site.decodeIssues.length === 0;
      budget.spend(this.siteRules.length);
      this.checkPodSite(site, identity, decodable, result);
      for (const container of site.containers) {
        result.containers++;
        this.checkContainer(site, container, identity, decodable && container.decodeIssues.length === 0, run, cluster, budget, result);
      }
    }
  }

  private checkDocument(resource: Resource, document: LintDocument, result: LintResult): void {
    const target: ReportTarget = { resource, identity: identityOf(resource.object), container: undefined, metadata: [resource.object.metadata] };
    // Stryker disable next-line ArrayDeclaration: called only for a document with source issues.
    const sourceIssues = document.sourceIssues ?? [];
    for (const active of this.documentRules) {
      this.guard(active, resource, result, () => active.rule.checkDocument!({ sourceIssues, report: (report) => this.record(active, target, report, result) }));
    }
  }

  private checkPodSite(site: PodSite, identity: ResourceIdentity, decodable: boolean, result: LintResult): void {
    const target: ReportTarget = { resource: site.resource, identity, container: undefined, metadata: [site.resource.object.metadata, site.podMetadata] };
    for (const active of this.siteRules) {
      if (!decodable && active.rule.meta.readsUndecodable !== true) continue;
      this.guard(active, site.resource, result, () =>
        active.rule.checkPodSite!({
          site,
          decodeIssues: site.decodeIssues,
          knownRules: this.knownRules,
          report: (report) => this.record(active, target, report, result),
        }),
      );
    }
  }

  private checkContainer(
    site: PodSite,
    container: ContainerSite,
    identity: ResourceIdentity,
    decodable: boolean,
    run: RunFacts,
    cluster: ClusterFacts,
    budget: WorkBudget,
    result: LintResult,
  ): void {
    const rules = this.containerRules[container.role][container.longRunning ? 'longRunning' : 'any'];
    // Stryker disable next-line ConditionalExpression: a shortcut; with no rules the probes are read for nothing.
    if (rules.length === 0) return;
    budget.spend(rules.length);
    const probes = effectiveProbes(container);
    const timedProbes = probes.filter((probe) => probe.numbersValid);
    const target: ReportTarget = { resource: site.resource, identity, container: container.name, metadata: [site.resource.object.metadata, site.podMetadata] };
    // One context per container, shared by the rules in turn: this loop runs for every container of every input.
    let current = rules[0]!;
    const context: ContainerContext<unknown, string> = {
      site,
      container,
      spec: container.container,
      probes,
      probe: (type) => probes.find((probe) => probe.type === type),
      timedProbes,
      timedProbe: (type) => timedProbes.find((probe) => probe.type === type),
      options: undefined,
      cluster,
      gatesOn: this.gatesOn,
      run,
      evidence: this.options.evidence?.forContainer(identity, container.name),
      evidenceWindow: this.options.evidence?.window,
      budget,
      report: (report) => this.record(current, target, report, result),
    };
    for (const active of rules) {
      if (!decodable && active.rule.meta.readsUndecodable !== true) continue;
      current = active;
      context.options = active.options;
      // The guard written out: no closure per rule and container.
      try {
        active.rule.checkContainer!(context);
      } catch (error) {
        if (error instanceof WorkBudgetExceeded) throw error;
        result.failures.push({ rule: active.rule.meta.id, resource: site.resource, error });
      }
    }
  }

  private guard(active: ActiveRule, resource: Resource, result: LintResult, check: () => void): void {
    try {
      check();
    } catch (error) {
      if (error instanceof WorkBudgetExceeded) throw error;
      result.failures.push({ rule: active.rule.meta.id, resource, error });
    }
  }

  /** Turns a rule's report into a finding, or a suppressed finding. */
  private record(active: ActiveRule, target: ReportTarget, report: Report<string>, result: LintResult): void {
    const { meta } = active.rule;
    const text = meta.messages[report.messageId];
    if (text === undefined) throw new Error(`${meta.id} reported an unknown message id "${report.messageId}"`);
    const finding: Finding = {
      rule: meta.id,
      messageId: report.messageId,
      severity: active.severity ?? report.severity ?? meta.severity,
      message: formatMessage(text.long, report.data),
      short: formatMessage(text.short, report.data),
      pointer: report.pointer,
      resource: target.resource,
      identity: target.identity,
    };
    if (target.container !== undefined) finding.container = target.container;
    if (report.fix !== undefined && meta.fix !== undefined) {
      finding.fix = report.fix;
      finding.fixKind = meta.fix;
    }
    if (report.position !== undefined) finding.position = report.position;
    if (report.evidence !== undefined) finding.evidence = report.evidence;

    const subject: SuppressionSubject = { rule: finding.rule, identity: target.identity, container: target.container, metadata: target.metadata };
    const verdict = this.suppression.judge(subject);
    if (verdict.kind === 'suppressed') {
      result.suppressed.push({ ...finding, suppression: verdict.suppression });
      return;
    }
    if (verdict.kind === 'expired') finding.message += ` (${verdict.note})`;
    result.findings.push(finding);
  }
}

/** Who a report is about: the resource, its identity, the container, and the metadata whose annotations may suppress. */
interface ReportTarget {
  resource: Resource;
  identity: ResourceIdentity;
  container: string | undefined;
  metadata: SuppressionSubject['metadata'];
}
