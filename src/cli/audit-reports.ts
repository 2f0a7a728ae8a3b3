// --apply-reports: audit's findings written into the cluster as report objects (PolicyReport or
// OpenReports' Report), one per namespace, updated in place; stale ones of earlier runs deleted.
import { applyReports } from '../cluster/apply-reports.js';
import type { CallGuard } from '../cluster/call-guard.js';
import type { KubeClient } from '../cluster/kube-client.js';
import type { ReportInput } from '../report/located.js';
import { MANAGED_BY, policyReportObjects, REPORT_KINDS } from '../report/policy-reports.js';
import { visible } from '../report/visible.js';
import type { AuditArguments } from './arguments.js';
import { commandProgress, type CommandIo } from './context.js';

/** --apply-reports: the report objects applied in the cluster, stale ones deleted; 2 when any could not be written. */
export async function writeReports(
  client: KubeClient,
  guard: CallGuard,
  reported: ReportInput,
  kind: NonNullable<AuditArguments['applyReports']>,
  namespace: string | undefined,
  noProgress: boolean,
  io: CommandIo,
): Promise<number | undefined> {
  const kinds = REPORT_KINDS[kind];
  const writing = await commandProgress(io, noProgress);
  try {
    const { applied, deleted, failed } = await applyReports(
      client,
      guard,
      policyReportObjects(reported, kinds),
      kinds,
      namespace,
      MANAGED_BY,
      writing.listener,
    );
    writing.end();
    io.stderr(`probe-lint audit: wrote ${applied} ${kinds.namespaced} object${applied === 1 ? '' : 's'}${deleted > 0 ? `, deleted ${deleted} stale` : ''}\n`);
    for (const report of failed)
      io.stderr(
        `probe-lint audit: cannot write ${report.namespace === undefined ? visible(report.name) : `${visible(report.namespace)}/${visible(report.name)}`}: ${visible(report.reason)}\n`,
      );
    return failed.length > 0 ? 2 : undefined;
  } catch (error) {
    writing.end();
    io.stderr(`probe-lint audit: cannot write the reports: ${visible((error as Error).message)}\n`);
    return 2;
  }
}
