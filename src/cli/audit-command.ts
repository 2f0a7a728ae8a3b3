import { RULES } from '../../rules/index.js';
import { readAuditInputs, WorkloadsUnreadable, type AuditInputs } from '../cluster/audit-inputs.js';
import { AUDIT_READ_LIMITS, KubeClient, loadKubeConfig } from '../cluster/kube-client.js';
import type { ProbeMetricsSource } from '../cluster/probe-metrics.js';
import { readFileSync } from 'node:fs';
import type { AuditArguments } from './arguments.js';
import { commandProgress, loadConfigOrReport, withRuleSelection, type CommandIo } from './context.js';
import { writeReports } from './audit-reports.js';
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
  const probeMetrics = args.probeMetrics === undefined ? undefined : probeMetricsSource(args.probeMetrics, io);
  if (args.probeMetrics !== undefined && probeMetrics === undefined) return 2;
  const contextNamespace = client.config.getContextObject(client.config.getCurrentContext())?.namespace;
  const namespace = args.allNamespaces ? undefined : (args.namespace ?? contextNamespace ?? 'default');
  const progress = await commandProgress(io, args.noProgress);
  let inputs: AuditInputs;
  try {
    const scope = { namespace, since: args.since, podsPerNode: args.podsPerNode, probeMetrics };
    inputs = await readAuditInputs(client, config, scope, progress.listener, (message) => progress.stderr(`probe-lint audit: warning: ${visible(message)}\n`));
  } catch (error) {
    progress.end();
    if (!(error instanceof WorkloadsUnreadable)) throw error;
    io.stderr(`probe-lint audit: ${visible(error.message)}\n`);
    return 2;
  }
  progress.end();
  const { evidence } = inputs;
  const session = new LintSession({ rules: RULES, config, cluster: inputs.cluster, strict: args.strict, ...(evidence ? { evidence } : {}) });
  const outcome = session.lintObjects(inputs.objects, { minSeverity: args.minSeverity, runtime: evidence !== undefined });
  const auditScope = {
    cluster: client.config.getCurrentCluster()?.server ?? client.config.getCurrentContext(),
    namespaces: namespace === undefined ? 'all namespaces' : `namespace ${namespace}`,
    evidence: evidenceText(args),
  };
  const { code, input: reported } = await reportOutcome(outcome, { args, io, enabledRules: session.enabledRuleIds, report: io.stdout, auditScope });
  if (args.applyReports === undefined) return code;
  return (await writeReports(client, inputs.guard, reported, args.applyReports, namespace, args.noProgress, io)) ?? code;
}

/** What runtime evidence audit read, in words: "Events and Pod statuses of the last 1h; probe metrics from each node's kubelet". */
function evidenceText(args: AuditArguments): string {
  if (args.since === undefined) return 'none (--no-evidence)';
  const metrics =
    args.probeMetrics === undefined
      ? ''
      : args.probeMetrics.kind === 'kubelet'
        ? "; probe metrics from each node's kubelet"
        : `; probe metrics from Prometheus at ${args.probeMetrics.url.origin}${args.probeMetrics.url.pathname}`;
  return `Events and Pod statuses of the last ${args.since.text}${metrics}`;
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
