// probe-lint's chart installed by the real helm and running as Pods on the real node: the release,
// its webhook Pods, and the `probe-lint serve` processes inside them (the suite shares their PID
// namespace). Used by the chart-as-Pods suite and by the admission scale benchmark.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers.js';
import { helm } from '../tools.js';
import { startCluster, type Cluster } from './cluster.js';
import { NAMESPACE, RELEASE } from './install.js';
import { nodeUnavailable, startNode, type Node } from './node.js';

/** The archive test/cluster/build-image.sh wrote; scripts/e2e.sh passes it on. */
export const IMAGE_ARCHIVE = process.env.PROBE_LINT_E2E_IMAGE;
export const IMAGE = 'probe-lint.test/probe-lint:e2e';
/** The values that run the release from the image imported into the node. */
export const IMAGE_VALUES = [`image.repository=${IMAGE.split(':')[0]}`, `image.tag=${IMAGE.split(':')[1]}`, 'image.pullPolicy=Never'];

/** Why the chart cannot run as Pods here (no node, or the image was not built), or undefined. */
export function chartPodsUnavailable(): string | undefined {
  return (
    nodeUnavailable() ??
    (IMAGE_ARCHIVE === undefined || !existsSync(IMAGE_ARCHIVE)
      ? "probe-lint's image was not built (scripts/e2e.sh builds it with test/cluster/build-image.sh: buildah and busybox-static from Debian)"
      : undefined)
  );
}

/** `helm install` or `helm upgrade` of the chart, waiting until its workloads are ready; throws with helm's words. */
export function helmRelease(cluster: Cluster, command: 'install' | 'upgrade', values: string[]): void {
  const run = helm([
    command,
    RELEASE,
    join(ROOT, 'charts/probe-lint'),
    '--kubeconfig',
    cluster.kubeconfig,
    '--namespace',
    NAMESPACE,
    ...(command === 'install' ? ['--create-namespace'] : ['--reuse-values']),
    ...values.flatMap((value) => ['--set', value]),
    '--wait=watcher',
    '--timeout',
    '4m',
  ]);
  if (run.code !== 0) throw new Error(`helm ${command}: ${run.stderr}`);
}

/** A control plane for Pods, the real node with probe-lint's image imported, and the chart installed on them with `values`. */
export async function chartOnNode(values: string[]): Promise<{ cluster: Cluster; node: Node }> {
  const cluster = await startCluster({ pods: true });
  const node = await startNode(cluster, { images: [IMAGE_ARCHIVE!] });
  helmRelease(cluster, 'install', [...IMAGE_VALUES, ...values]);
  return { cluster, node };
}

/** The release's webhook Pods, as the API server has them. */
export async function webhookPods(cluster: Cluster): Promise<any[]> {
  return (await cluster.api('GET', `/api/v1/namespaces/${NAMESPACE}/pods?labelSelector=app.kubernetes.io/name%3Dprobe-lint`)).json.items;
}

export const isReady = (pod: any): boolean =>
  pod.status?.conditions?.some((condition: any) => condition.type === 'Ready' && condition.status === 'True') === true;

export interface ServeProcess {
  pid: string;
  /** /proc/<pid>/status */
  status: string;
  /** The mountinfo line of its root. */
  root: string;
}

/** The processes of the node's containers that run `probe-lint serve`. */
export function serveProcesses(): ServeProcess[] {
  const found: ServeProcess[] = [];
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (command[0] !== 'node' || command[1] !== '/app/dist/src/cli/bin.js' || command[2] !== 'serve') continue;
      const rootMount = readFileSync(`/proc/${pid}/mountinfo`, 'utf8')
        .split('\n')
        .find((line) => line.split(' ')[4] === '/');
      found.push({ pid, status: readFileSync(`/proc/${pid}/status`, 'utf8'), root: rootMount ?? '' });
    } catch {
      // the process ended while it was read
    }
  }
  return found;
}

/** A field of /proc/<pid>/status. */
export const statusField = (status: string, name: string): string => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(status)?.[1]?.trim() ?? '';
