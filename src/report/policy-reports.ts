// Reports where platforms look: OpenReports (openreports.io/v1alpha1 Report and ClusterReport) and
// the Kubernetes Policy WG's PolicyReport (wgpolicyk8s.io/v1alpha2, which Policy Reporter and many
// dashboards read). Both have the same shape. One report per namespace — objects without one go to
// the namespace kubectl would put them in, "default"; cluster-scoped objects to the cluster-wide
// kind — split in parts of at most RESULTS_PER_REPORT results, so that no object nears the API
// server's size limit. A result per finding (fail at or above --fail-on, else warn) and a pass per
// object without findings. Written as a v1 List that `kubectl apply -f` and `audit --apply-reports` take.
import { severityRank } from '../engine/finding.js';
import type { Severity } from '../engine/rule.js';
import type { ResourceIdentity } from '../model/resource.js';
import type { LocatedFinding, ReportInput } from './located.js';

export const RESULTS_PER_REPORT = 500;
export const REPORT_NAME = 'probe-lint';
/** Every report probe-lint writes carries this label: --apply-reports finds its own by it. */
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'probe-lint' } as const;

export interface ReportKinds {
  apiVersion: string;
  namespaced: string;
  clusterWide: string;
  /** The resources' plural names, for their API paths. */
  plural: string;
  clusterPlural: string;
}

export const OPENREPORTS: ReportKinds = {
  apiVersion: 'openreports.io/v1alpha1',
  namespaced: 'Report',
  clusterWide: 'ClusterReport',
  plural: 'reports',
  clusterPlural: 'clusterreports',
};
export const POLICY_REPORTS: ReportKinds = {
  apiVersion: 'wgpolicyk8s.io/v1alpha2',
  namespaced: 'PolicyReport',
  clusterWide: 'ClusterPolicyReport',
  plural: 'policyreports',
  clusterPlural: 'clusterpolicyreports',
};

export const REPORT_KINDS = { openreports: OPENREPORTS, policyreport: POLICY_REPORTS } as const;

// Kinds of the pod-bearing world that are cluster-scoped: none today, but a custom resource may be.
const CLUSTER_SCOPED = new Set(['Node', 'Namespace']);

type Result = Record<string, unknown> & { result: 'pass' | 'fail' | 'warn' };

const SEVERITY: Record<Severity, 'high' | 'medium' | 'info'> = { error: 'high', warning: 'medium', info: 'info' };

/** The report objects for the input, in a stable order (namespace, then part). */
export function policyReportObjects(input: ReportInput, kinds: ReportKinds): Record<string, unknown>[] {
  const timestamp = { seconds: Math.floor(input.generatedAt.getTime() / 1000), nanos: 0 };
  const byScope = new Map<string, Result[]>();
  const add = (namespace: string | undefined, result: Result) => {
    const key = namespace ?? '';
    const list = byScope.get(key);
    if (list) list.push(result);
    else byScope.set(key, [result]);
  };
  const scopeOf = (identity: ResourceIdentity) => (CLUSTER_SCOPED.has(identity.kind) ? undefined : (identity.namespace ?? 'default'));
  const withFindings = new Set<string>();
  for (const finding of input.findings) {
    withFindings.add(objectKey(finding.identity));
    add(scopeOf(finding.identity), resultOf(finding, input, timestamp));
  }
  for (const object of input.objects()) {
    if (object.identity === undefined || withFindings.has(objectKey(object.identity))) continue;
    add(scopeOf(object.identity), {
      source: 'probe-lint',
      policy: 'probe-lint',
      result: 'pass',
      message: 'no probe problems found',
      scored: true,
      resources: [reference(object.identity)],
      timestamp,
    });
  }
  const reports: Record<string, unknown>[] = [];
  for (const namespace of [...byScope.keys()].sort()) {
    const results = byScope.get(namespace)!;
    for (let part = 0; part * RESULTS_PER_REPORT < results.length; part++) {
      const slice = results.slice(part * RESULTS_PER_REPORT, (part + 1) * RESULTS_PER_REPORT);
      const summary = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
      for (const result of slice) summary[result.result]++;
      reports.push({
        apiVersion: kinds.apiVersion,
        kind: namespace === '' ? kinds.clusterWide : kinds.namespaced,
        metadata: {
          name: part === 0 ? REPORT_NAME : `${REPORT_NAME}-${part + 1}`,
          ...(namespace === '' ? {} : { namespace }),
          labels: { ...MANAGED_BY },
        },
        summary,
        results: slice,
      });
    }
  }
  return reports;
}

export function formatOpenReports(input: ReportInput): string {
  return asList(policyReportObjects(input, OPENREPORTS));
}

export function formatPolicyReports(input: ReportInput): string {
  return asList(policyReportObjects(input, POLICY_REPORTS));
}

function asList(items: Record<string, unknown>[]): string {
  return `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 2)}\n`;
}

function objectKey(identity: ResourceIdentity): string {
  return `${identity.apiVersion}/${identity.kind}/${identity.namespace ?? ''}/${identity.name ?? ''}`;
}

function reference(identity: ResourceIdentity): Record<string, string> {
  return {
    apiVersion: identity.apiVersion,
    kind: identity.kind,
    ...(identity.name === undefined ? {} : { name: identity.name }),
    ...(identity.namespace === undefined ? {} : { namespace: identity.namespace }),
  };
}

/** A runtime finding's evidence as string properties, nested keys joined by dots (`unhealthy.livenessProbe`, `latencySeconds.p99`). */
function flatProperties(value: object, prefix = ''): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value))
    if (entry !== null && typeof entry === 'object') Object.assign(flat, flatProperties(entry as object, `${prefix}${key}.`));
    else flat[`${prefix}${key}`] = String(entry);
  return flat;
}

function resultOf(finding: LocatedFinding, input: ReportInput, timestamp: { seconds: number; nanos: number }): Result {
  const fails = input.failOn !== 'never' && severityRank(finding.severity) >= severityRank(input.failOn);
  // properties is a map of strings: where the finding is, and a runtime finding's counts.
  const properties: Record<string, string> = { messageId: finding.messageId, pointer: finding.pointer };
  if (finding.container !== undefined) properties.container = finding.container;
  if (finding.file !== undefined) properties.file = finding.line === undefined ? finding.file : `${finding.file}:${finding.line}:${finding.column}`;
  if (finding.evidence !== undefined) Object.assign(properties, flatProperties(finding.evidence));
  if (finding.causes !== undefined) properties.causes = finding.causes.map((cause) => cause.rule).join(',');
  return {
    source: 'probe-lint',
    policy: finding.rule,
    rule: finding.messageId,
    category: finding.evidence !== undefined ? 'runtime' : 'probes',
    severity: SEVERITY[finding.severity],
    result: fails ? 'fail' : 'warn',
    message: finding.message,
    scored: true,
    resources: [reference(finding.identity)],
    properties,
    timestamp,
  };
}
