// `probe-lint audit --apply-reports KIND`: writes the reports into the cluster by server-side apply
// (field manager probe-lint), so that the next run updates them in place, and deletes the parts an
// earlier run wrote that this one did not (a namespace with fewer results, or none): found by the
// managed-by label, within the namespaces audited.
import type { CallGuard } from './call-guard.js';
import type { ProgressListener } from '../model/progress.js';
import type { KubeClient } from './kube-client.js';

/** Where a report kind lives: its API group version and resource names. */
export interface ReportResources {
  apiVersion: string;
  plural: string;
  clusterPlural: string;
}

interface ReportObject {
  kind?: unknown;
  metadata?: { name?: string; namespace?: string };
}

export async function applyReports(
  client: KubeClient,
  guard: CallGuard,
  reports: readonly Record<string, unknown>[],
  kinds: ReportResources,
  namespace: string | undefined,
  /** The label every report of ours carries. */
  managedBy: Readonly<Record<string, string>>,
  progress?: ProgressListener,
): Promise<AppliedReports> {
  const base = `/apis/${kinds.apiVersion}`;
  const pathOf = (object: ReportObject) =>
    object.metadata?.namespace === undefined
      ? `${base}/${kinds.clusterPlural}/${encodeURIComponent(object.metadata?.name ?? '')}`
      : `${base}/namespaces/${encodeURIComponent(object.metadata.namespace)}/${kinds.plural}/${encodeURIComponent(object.metadata?.name ?? '')}`;
  const written = new Set<string>();
  const failed: AppliedReports['failed'] = [];
  // Each report on its own: one namespace refusing its report (RBAC, a quota, an admission policy)
  // leaves the others written, and its own last report in place (it is not deleted as stale).
  const kept = new Set<string>();
  for (const [index, report] of (reports as readonly ReportObject[]).entries()) {
    progress?.({ task: 'writing {count} reports', done: index, total: reports.length, current: report.metadata?.namespace ?? report.metadata?.name ?? '' });
    try {
      await guard.run('apply report', (signal) => client.apply(pathOf(report), report, signal));
      written.add(pathOf(report));
    } catch (error) {
      kept.add(pathOf(report));
      failed.push({ namespace: report.metadata?.namespace, name: report.metadata?.name ?? '', reason: (error as Error).message });
    }
  }
  const selector = Object.entries(managedBy)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  const stale: string[] = [];
  const collect = (items: ReportObject[]) => {
    for (const item of items) if (!written.has(pathOf(item)) && !kept.has(pathOf(item))) stale.push(pathOf(item));
  };
  const namespaced = namespace === undefined ? `${base}/${kinds.plural}` : `${base}/namespaces/${encodeURIComponent(namespace)}/${kinds.plural}`;
  await guard.run('list reports', (signal, answered) => client.listPaged<ReportObject>(namespaced, { labelSelector: selector }, signal, collect, answered));
  // The cluster-wide report belongs to an audit of every namespace only.
  if (namespace === undefined)
    await guard.run('list reports', (signal, answered) =>
      client.listPaged<ReportObject>(`${base}/${kinds.clusterPlural}`, { labelSelector: selector }, signal, collect, answered),
    );
  let deleted = 0;
  for (const path of stale) {
    try {
      await guard.run('delete report', (signal) => client.delete(path, signal));
      deleted++;
    } catch (error) {
      failed.push({ namespace: undefined, name: path, reason: `cannot delete the stale report: ${(error as Error).message}` });
    }
  }
  return { applied: written.size, deleted, failed };
}

export interface AppliedReports {
  applied: number;
  deleted: number;
  /** Reports that could not be written (or stale ones not deleted), each with the API server's reason. */
  failed: { namespace: string | undefined; name: string; reason: string }[];
}
