// Installs what `helm template charts/probe-lint` renders into the real API server, and runs the
// webhook the way the chart's Deployment would: `probe-lint serve` with the chart's TLS Secret, its
// ConfigMap, and its ServiceAccount's token, listening on the Service's port 443 (the API server
// calls the Service's ClusterIP, which the test network namespace routes to this process).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ROOT } from '../helpers.js';
import { startServe, type ServeProcess } from '../serve-process.js';
import { helm } from '../tools.js';
import { httpsRequest } from '../webhook-client.js';
import type { Cluster } from './cluster.js';

export const RELEASE = 'probe-lint';
export const NAMESPACE = 'probe-lint';

export interface RenderedChart {
  yaml: string;
  objects: any[];
  find(kind: string, name?: string): any;
}

export function renderChart(values: string[] = []): RenderedChart {
  const run = helm(['template', RELEASE, join(ROOT, 'charts/probe-lint'), '--namespace', NAMESPACE, ...values.flatMap((value) => ['--set', value])]);
  if (run.code !== 0) throw new Error(`helm template failed: ${run.stderr}`);
  const objects = parseAllDocuments(run.stdout)
    .map((document) => document.toJS() as unknown)
    .filter((object): object is any => object !== null);
  return {
    yaml: run.stdout,
    objects,
    find(kind, name) {
      const found = objects.find((object) => object.kind === kind && (name === undefined || object.metadata.name === name));
      if (found === undefined) throw new Error(`the chart rendered no ${kind}${name ? ` ${name}` : ''}`);
      return found;
    },
  };
}

/** Applies the rendered chart (the namespace first), and waits for the ServiceAccount's token. */
export async function installChart(cluster: Cluster, chart: RenderedChart): Promise<void> {
  await cluster.kubectl(['create', 'namespace', NAMESPACE]);
  const applied = await cluster.kubectl(['apply', '-f', '-'], { input: chart.yaml });
  if (applied.code !== 0) throw new Error(`kubectl apply of the chart failed: ${applied.stderr}`);
}

/** Installs everything the chart renders but its webhook configurations (added later, or never, by the test). */
export async function installChartWithoutWebhooks(cluster: Cluster, chart: RenderedChart): Promise<void> {
  await installChart(cluster, {
    ...chart,
    yaml: chart.objects
      .filter((object) => !object.kind.endsWith('WebhookConfiguration'))
      .map((object) => JSON.stringify(object))
      .join('\n'),
  });
}

/**
 * Re-applies only the webhook configurations of a rendering (e.g. with another failurePolicy),
 * with the caBundle of the installed release: `helm template` cannot look the release's Secret up,
 * so each rendering makes a new CA, where `helm upgrade` keeps the installed one.
 */
export async function applyWebhookConfigurations(cluster: Cluster, chart: RenderedChart, installed: RenderedChart): Promise<void> {
  const caBundle = installed.find('ValidatingWebhookConfiguration').webhooks[0].clientConfig.caBundle;
  const configurations = chart.objects.filter((object) => object.kind.endsWith('WebhookConfiguration'));
  for (const configuration of configurations) for (const webhook of configuration.webhooks) webhook.clientConfig.caBundle = caBundle;
  const applied = await cluster.kubectl(['apply', '-f', '-'], { input: configurations.map((object) => JSON.stringify(object)).join('\n') });
  if (applied.code !== 0) throw new Error(`kubectl apply of the webhook configurations failed: ${applied.stderr}`);
}

/** The ServiceAccount's token, as a kubeconfig: the webhook's (and audit's) only credentials. */
export async function serviceAccountKubeconfig(cluster: Cluster, name = RELEASE): Promise<string> {
  const token = await cluster.kubectl(['create', 'token', name, '-n', NAMESPACE, '--duration', '2h']);
  if (token.code !== 0) throw new Error(`kubectl create token failed: ${token.stderr}`);
  return cluster.tokenKubeconfig(`sa-${name}`, token.stdout.trim());
}

export interface Webhook extends ServeProcess {
  /** The chart's CA, which the API server trusts through the caBundle. */
  caCert: string;
}

/** `probe-lint serve` as the chart configures it, on 0.0.0.0:443. */
export async function startWebhook(
  cluster: Cluster,
  chart: RenderedChart,
  options: { extraArgs?: string[]; config?: string; env?: Record<string, string> } = {},
): Promise<Webhook> {
  const directory = join(cluster.directory, 'webhook');
  mkdirSync(directory, { recursive: true });
  const secret = chart.find('Secret', `${RELEASE}-tls`);
  const certFile = join(directory, 'tls.crt');
  const keyFile = join(directory, 'tls.key');
  writeFileSync(certFile, Buffer.from(secret.data['tls.crt'], 'base64'));
  writeFileSync(keyFile, Buffer.from(secret.data['tls.key'], 'base64'));
  const caCert = join(directory, 'ca.crt');
  writeFileSync(caCert, Buffer.from(secret.data['ca.crt'], 'base64'));
  const configFile = join(directory, 'probe-lint.yaml');
  writeFileSync(configFile, options.config ?? chart.find('ConfigMap', RELEASE).data['probe-lint.yaml']);
  const kubeconfig = await serviceAccountKubeconfig(cluster);
  const serve = await startServe(
    ['--host', '0.0.0.0', '--tls-cert', certFile, '--tls-key', keyFile, '--config', configFile, '--kubeconfig', kubeconfig, ...(options.extraArgs ?? [])],
    {
      env: { LOG_LEVEL: 'info', ...options.env },
      port: 443,
    },
  );
  return { ...serve, caCert };
}

/** A counter of the webhook's /metrics, summed over the series that match `labels`. */
export async function metric(webhook: Webhook, name: string, labels: Record<string, string> = {}): Promise<number> {
  const reply = await httpsRequest(webhook.port, '/metrics', { ca: webhook.caCert, tls: { servername: `${RELEASE}.${NAMESPACE}.svc` } });
  let total = 0;
  for (const line of reply.text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) total += Number(line.split(' ').at(-1));
  }
  return total;
}

/** The report formats' CRDs (test/cluster/report-crds.sh), applied and waited for until their resources are served. */
export async function installReportCrds(cluster: Cluster): Promise<void> {
  const crds = execFileSync(join(ROOT, 'test/cluster/report-crds.sh'), { encoding: 'utf8' }).trim().split('\n');
  for (const crd of crds) {
    const applied = await cluster.kubectl(['apply', '-f', crd]);
    if (applied.code !== 0) throw new Error(`kubectl apply -f ${crd}: ${applied.stderr}`);
  }
  const established = await cluster.kubectl(['wait', '--for', 'condition=established', '--timeout', '60s', ...crds.flatMap((crd) => ['-f', crd])]);
  if (established.code !== 0) throw new Error(`the report CRDs were not established: ${established.stderr}`);
  // Established is not yet served: the new resources' storage initializes (429) a moment longer.
  for (let attempt = 0; ; attempt++) {
    const listed = await cluster.kubectl([
      'get',
      'policyreports.wgpolicyk8s.io,clusterpolicyreports.wgpolicyk8s.io,reports.openreports.io,clusterreports.openreports.io',
      '-A',
    ]);
    if (listed.code === 0) return;
    if (attempt > 100) throw new Error(`the report resources are not served: ${listed.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
