import { RULES } from '../../rules/index.js';
import { CallGuard, systemClock } from '../cluster/call-guard.js';
import { fetchClusterFactsOnce, guardOptions } from '../cluster/cluster-access.js';
import { AUDIT_READ_LIMITS, KubeClient, loadKubeConfig } from '../cluster/kube-client.js';
import { applyReports } from '../cluster/apply-reports.js';
import { collectEvidence, Owners } from '../cluster/runtime-evidence.js';
import { collectProbeMetrics, sourceName, type ProbeMetricsSource } from '../cluster/probe-metrics.js';
import { readFileSync } from 'node:fs';
import { MANAGED_BY, policyReportObjects, REPORT_KINDS } from '../report/policy-reports.js';
import { listWorkloads, type OwnedObjects } from '../cluster/workloads.js';
import { EvidenceMap } from '../engine/runtime-evidence.js';
import { clusterFactsFrom } from '../engine/config.js';
import type { AuditArguments } from './arguments.js';
import { commandProgress, loadConfigOrReport, withRuleSelection, type CommandIo } from './context.js';
import { clearReportPaths, reportOutcome } from './report-outcome.js';
import { LintSession } from '../lint/index.js';
import { visible } from '../report/visible.js';

/** `probe-lint audit`: lints the workloads living in a cluster; findings name `kind/namespace/name`. */
export async function runAudit(args: AuditArguments, io: CommandIo): Promise<number> {
  const refused = clearReportPaths(args.reports, io);
  if (refused !== undefined) return refused;
  const loaded = await loadConfigOrReport(args.config, io, 'probe-lint audit');
  if (loaded === undefined) return 2;
  const config = withRuleSelection(loaded, args.enable, args.disable);
  let client: KubeClient;
  try {
    client = new KubeClient(loadKubeConfig(args.kubeconfig, args.context, io.env), AUDIT_READ_LIMITS);
  } catch (error) {
    io.stderr(`probe-lint audit: ${visible((error as Error).message)}\n`);
    return 2;
  }
  // A token or CA file that cannot be read is said before the cluster is called.
  const metricsSource = args.probeMetrics === undefined ? undefined : probeMetricsSource(args.probeMetrics, io);
  if (args.probeMetrics !== undefined && metricsSource === undefined) return 2;
  const contextNamespace = client.config.getContextObject(client.config.getCurrentContext())?.namespace;
  const namespace = args.allNamespaces ? undefined : (args.namespace ?? contextNamespace ?? 'default');
  const guard = new CallGuard({ ...guardOptions(config), failureThreshold: 1 }, systemClock, undefined, undefined);
  let objects;
  const owned: OwnedObjects | undefined = args.since === undefined ? undefined : { pods: [], jobs: [] };
  const progress = await commandProgress(io, args.noProgress);
  try {
    objects = await listWorkloads(client, guard, namespace, owned, progress.listener);
  } catch (error) {
    progress.end();
    io.stderr(
      `probe-lint audit: cannot read the workloads from ${visible(client.config.getCurrentCluster()?.server ?? 'the cluster')}: ${visible((error as Error).message)}\n`,
    );
    return 2;
  }
  // Density from the same cluster (one attempt), unless given on the command line.
  let cluster = clusterFactsFrom(config, args.podsPerNode);
  if (args.podsPerNode === undefined) {
    try {
      cluster = await fetchClusterFactsOnce(client, config);
    } catch (error) {
      progress.stderr(`probe-lint audit: warning: cannot read cluster density: ${visible((error as Error).message)}; auditing without it\n`);
    }
  }
  // What the kubelet did: the window's Events and the Pods' restart counts (one attempt, like density).
  // The Pods' owners are resolved once, for the Events and the probe metrics alike.
  const workloads = owned === undefined ? undefined : { owners: new Owners(objects, owned.jobs, owned.pods), pods: owned.pods };
  let evidence: EvidenceMap | undefined;
  if (args.since !== undefined && workloads !== undefined) {
    try {
      progress.listener?.({ task: 'reading the Events ({count})', done: 0, total: 1, current: `since ${args.since.text}` });
      evidence = await collectEvidence(client, guard, { namespace, since: args.since, now: Date.now() }, workloads);
    } catch (error) {
      progress.stderr(`probe-lint audit: warning: cannot read runtime evidence (Events): ${visible((error as Error).message)}; auditing the specs only\n`);
    }
  }
  // What the kubelet measured of the probes (one attempt per source, like the Events).
  if (metricsSource !== undefined && args.since !== undefined && workloads !== undefined) {
    evidence ??= new EvidenceMap(args.since.text);
    try {
      const notices = await collectProbeMetrics(
        client,
        guardOptions(config),
        metricsSource,
        { namespace, since: args.since },
        workloads,
        evidence,
        progress.listener,
      );
      for (const notice of notices)
        progress.stderr(`probe-lint audit: warning: probe metrics from ${visible(sourceName(metricsSource))}: ${visible(notice)}\n`);
    } catch (error) {
      progress.stderr(
        `probe-lint audit: warning: cannot read probe metrics from ${visible(sourceName(metricsSource))}: ${visible((error as Error).message)}; auditing without them\n`,
      );
    }
  }
  progress.end();
  const session = new LintSession({ rules: RULES, config, cluster, strict: args.strict, ...(evidence ? { evidence } : {}) });
  const outcome = session.lintObjects(objects, { minSeverity: args.minSeverity, runtime: evidence !== undefined });
  const { code, input: reported } = await reportOutcome(outcome, { args, io, enabledRules: session.enabledRuleIds, report: io.stdout });
  if (args.applyReports === undefined) return code;
  const kinds = REPORT_KINDS[args.applyReports];
  const writing = await commandProgress(io, args.noProgress);
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
    if (failed.length > 0) return 2;
  } catch (error) {
    writing.end();
    io.stderr(`probe-lint audit: cannot write the reports: ${visible((error as Error).message)}\n`);
    return 2;
  }
  return code;
}

/** The source of --probe-metrics, its token and CA files read; undefined (and said why) when a file cannot be read. */
function probeMetricsSource(given: NonNullable<AuditArguments['probeMetrics']>, io: CommandIo): ProbeMetricsSource | undefined {
  if (given.kind === 'kubelet') return given;
  const read = (file: string | undefined, option: string) => {
    if (file === undefined) return undefined;
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      io.stderr(`probe-lint audit: cannot read --${option} ${visible(file)}: ${visible((error as Error).message)}\n`);
      throw error;
    }
  };
  try {
    const token = read(given.tokenFile, 'prometheus-token-file')?.trim();
    const ca = read(given.caFile, 'prometheus-ca-file');
    return { kind: 'prometheus', prometheus: { url: given.url, bearerToken: token, ca } };
  } catch {
    return undefined;
  }
}
