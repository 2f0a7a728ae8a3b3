import { effectiveProbes } from '../model/effective-probe.js';
import { findPodSites, type ContainerSite, type PodSite } from '../model/pod-site.js';
import { identityOf, type Resource, type ResourceIdentity } from '../model/resource.js';
import type { Position } from '../source/line-index.js';
import type { ClusterFacts, ClusterFactsSource } from './cluster-facts.js';
import type { ProbeLintConfig, RuleSetting } from './config.js';
import type { Finding, SuppressedFinding } from './finding.js';
import type { ContainerContext, Report, Rule, Severity } from './rule.js';
import { collectRunFacts, type RunFacts } from './run-facts.js';
import { annotationSuppression, configSuppression, type SuppressionSubject } from './suppression.js';

export interface EngineOptions {
  config: ProbeLintConfig;
  /** Fixed facts, or a source read once per lint (the webhook's refresher). */
  cluster: ClusterFacts | ClusterFactsSource;
  /** Disregard `probe-lint.dev/ignore` annotations: only the config may exempt. */
  strict?: boolean;
  /** YYYY-MM-DD used to expire config exemptions; today by default. */
  today?: string;
}

/** One document of input: its resources, and source-level issues found while parsing it. */
export interface LintDocument {
  resources: Resource[];
  duplicateKeys?: readonly { key: string; position: Position }[];
}

export interface RuleFailure {
  rule: string;
  resource: Resource;
  error: unknown;
}

export interface LintResult {
  findings: Finding[];
  suppressed: SuppressedFinding[];
  /** A rule that threw is skipped for that object (fail-open) and listed here. */
  failures: RuleFailure[];
  resources: number;
  containers: number;
}

interface ActiveRule {
  rule: Rule;
  severity: Severity | undefined;
  options: unknown;
}

/** Runs the enabled rules over every pod site and container, then applies suppressions. */
export class Engine {
  private readonly active: ActiveRule[];
  private readonly containerRules: ActiveRule[];
  private readonly documentRules: ActiveRule[];
  private readonly today: string;

  constructor(
    rules: readonly Rule[],
    private readonly options: EngineOptions,
  ) {
    this.active = rules.flatMap((rule) => {
      const setting = options.config.rules?.[rule.meta.id];
      if (!isEnabled(setting)) return [];
      return [{ rule, severity: severityOverride(setting), options: { ...rule.meta.defaultOptions, ...optionsOf(setting) } }];
    });
    this.containerRules = this.active.filter(({ rule }) => rule.checkContainer !== undefined);
    this.documentRules = this.active.filter(({ rule }) => rule.checkDocument !== undefined);
    this.today = options.today ?? new Date().toISOString().slice(0, 10);
  }

  lint(documents: readonly LintDocument[], run: RunFacts = collectRunFacts(documents.flatMap((document) => document.resources))): LintResult {
    const result: LintResult = { findings: [], suppressed: [], failures: [], resources: 0, containers: 0 };
    const source = this.options.cluster;
    const cluster = 'current' in source ? source.current() : source;
    for (const document of documents) {
      const first = document.resources[0];
      if (first !== undefined && document.duplicateKeys?.length) this.checkDocument(first, document.duplicateKeys, result);
      for (const resource of document.resources) {
        result.resources++;
        const identity = identityOf(resource.object);
        for (const site of findPodSites(resource)) {
          for (const container of site.containers) {
            result.containers++;
            this.checkContainer(site, container, identity, run, cluster, result);
          }
        }
      }
    }
    return result;
  }

  private checkDocument(resource: Resource, duplicateKeys: NonNullable<LintDocument['duplicateKeys']>, result: LintResult): void {
    const target: ReportTarget = { resource, identity: identityOf(resource.object), container: undefined, metadata: [resource.object.metadata] };
    for (const active of this.documentRules) {
      this.guard(active, resource, result, () =>
        active.rule.checkDocument!({ duplicateKeys, report: (report) => this.record(active, target, report, result) }),
      );
    }
  }

  private checkContainer(site: PodSite, container: ContainerSite, identity: ResourceIdentity, run: RunFacts, cluster: ClusterFacts, result: LintResult): void {
    const probes = effectiveProbes(container);
    const target: ReportTarget = { resource: site.resource, identity, container: container.name, metadata: [site.resource.object.metadata, site.podMetadata] };
    // One context per container, shared by the rules in turn: this loop runs for every container of every input.
    let current = this.containerRules[0]!;
    const context: ContainerContext<unknown> = {
      site,
      container,
      spec: container.container,
      probes,
      probe: (type) => probes.find((probe) => probe.type === type),
      options: undefined,
      cluster,
      run,
      report: (report) => this.record(current, target, report, result),
    };
    for (const active of this.containerRules) {
      current = active;
      context.options = active.options;
      this.guard(active, site.resource, result, () => active.rule.checkContainer!(context));
    }
  }

  private guard(active: ActiveRule, resource: Resource, result: LintResult, check: () => void): void {
    try {
      check();
    } catch (error) {
      result.failures.push({ rule: active.rule.meta.id, resource, error });
    }
  }

  /** Turns a rule's report into a finding, or a suppressed finding. */
  private record(active: ActiveRule, target: ReportTarget, report: Report, result: LintResult): void {
    const finding: Finding = {
      rule: active.rule.meta.id,
      severity: active.severity ?? report.severity ?? active.rule.meta.severity,
      message: report.message,
      pointer: report.pointer,
      resource: target.resource,
      identity: target.identity,
    };
    if (target.container !== undefined) finding.container = target.container;
    if (report.fix !== undefined) finding.fix = report.fix;
    if (report.position !== undefined) finding.position = report.position;

    const subject: SuppressionSubject = { rule: finding.rule, identity: target.identity, container: target.container, metadata: target.metadata };
    const byAnnotation = this.options.strict ? undefined : annotationSuppression(subject);
    if (byAnnotation !== undefined) {
      result.suppressed.push({ ...finding, suppression: byAnnotation });
      return;
    }
    const verdict = configSuppression(this.options.config.ignore ?? [], subject, this.today);
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

function isEnabled(setting: RuleSetting | undefined): boolean {
  if (setting === undefined) return true;
  if (setting === 'off') return false;
  return typeof setting === 'string' || setting.enabled !== false;
}

function severityOverride(setting: RuleSetting | undefined): Severity | undefined {
  if (setting === undefined || setting === 'off') return undefined;
  return typeof setting === 'string' ? setting : setting.severity;
}

function optionsOf(setting: RuleSetting | undefined): Record<string, unknown> {
  return typeof setting === 'object' ? (setting.options ?? {}) : {};
}
