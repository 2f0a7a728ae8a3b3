// A real node for the end-to-end suite: the kubelet built with the control plane, Debian's
// containerd and runc, and images built from test/cluster/images (no registry is reachable). What
// had to be solved to run it here is in ../shared/reference/kubelet-measured.md; in short:
// - cgroup v1 with the cgroupfs driver, under a cgroup root of the node's own in every hierarchy,
//   so teardown removes exactly what the node made;
// - containerd may not lower oom_score_adj here (no CAP_SYS_RESOURCE): restrict_oom_score_adj;
// - the kubelet writes six global sysctls at start unless they already hold its values: files with
//   those values are bind-mounted over them, in the suite's private mount namespace (scripts/e2e.sh),
//   so the host's sysctls are never written;
// - the node is named 127.0.0.1 (a name that is an IP becomes its InternalIP): the probe scenarios'
//   Pods use hostNetwork, so their probes reach them on loopback;
// - other Pods get an address on a bridge in the suite's network namespace, through Debian's CNI
//   plugins (bridge, host-local); the network namespaces containerd makes and the CNI result cache
//   live on tmpfs mounts private to the suite's mount namespace, never in the host's /run or /var;
// - images are imported with ctr, and Pods use imagePullPolicy: Never.
// Started and torn down per test file; `stop()` leaves no process, mount, cgroup, link or directory.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { controlPlaneBinaries, freePort, startProcess, stopProcess, type Cluster } from './cluster.js';

export const NODE_NAME = '127.0.0.1';
export const APP_IMAGE = 'probe-lint.test/app:1';
const PAUSE_IMAGE = 'probe-lint.test/pause:1';
const CNI_PLUGINS = '/usr/lib/cni';
const BRIDGE = 'pl-e2e0';
export const POD_SUBNET = '10.244.0.0/24';
/** Where containerd (CNI) and the CNI plugins write outside their configured directories. */
const HOST_RUN_DIRECTORIES = ['/run/netns', '/var/lib/cni'];

// The kubelet's kernel tunables (pkg/kubelet/cm/container_manager_linux.go, setupKernelTunables).
const KUBELET_SYSCTLS: Record<string, string> = {
  'vm/overcommit_memory': '1',
  'vm/panic_on_oom': '0',
  'kernel/panic': '10',
  'kernel/panic_on_oops': '1',
  'kernel/keys/root_maxkeys': '1000000',
  'kernel/keys/root_maxbytes': '25000000',
};

export interface Node {
  name: string;
  /** A host directory Pods mount (hostPath) to leave files the test reads, e.g. the app's event log. */
  shared: string;
  /** What a container wrote to stdout and stderr, as the kubelet keeps it (CRI log lines). */
  containerLog(namespace: string, pod: string, container: string): string;
  stop(): Promise<void>;
}

/** Why a node cannot run on this machine, or undefined when it can. */
export function nodeUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'the node needs root (containerd, runc, cgroups, mounts)';
  for (const tool of ['containerd', 'containerd-shim-runc-v2', 'ctr', 'runc', 'mount', 'umount', 'ip']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      return `${tool} is not installed (Debian: apt-get install containerd runc)`;
    }
  }
  if (!existsSync(join(CNI_PLUGINS, 'bridge'))) return `the CNI plugins are not in ${CNI_PLUGINS} (Debian: apt-get install containernetworking-plugins)`;
  if (!existsSync('/sys/fs/cgroup/cpu') || !existsSync('/sys/fs/cgroup/memory')) return 'the node runs on cgroup v1 hierarchies, and this machine has none';
  return undefined;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The cgroup v1 hierarchies mounted under /sys/fs/cgroup (cpu, memory, …, name=systemd). */
function hierarchies(): string[] {
  return readdirSync('/sys/fs/cgroup')
    .map((name) => join('/sys/fs/cgroup', name))
    .filter((path) => !lstatSync(path).isSymbolicLink() && existsSync(join(path, 'cgroup.procs')));
}

/** Mount points at or under `directory`, deepest first. */
function mountsUnder(directory: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((point): point is string => point !== undefined && (point === directory || point.startsWith(`${directory}/`)))
    .sort((a, b) => b.length - a.length);
}

/** Removes a cgroup directory tree, children first (a cgroup is removed with rmdir, never rm). */
function removeCgroup(path: string): void {
  if (!existsSync(path)) return;
  for (const entry of readdirSync(path, { withFileTypes: true })) if (entry.isDirectory()) removeCgroup(join(path, entry.name));
  rmdirSync(path);
}

/**
 * A tmpfs over `path`, private to the suite's mount namespace; the directory is made first when the
 * host has none. Returns what stop() undoes: the directory to remove afterwards, if it was made.
 */
function privateTmpfs(path: string): string | undefined {
  const made = existsSync(path) ? undefined : path;
  mkdirSync(path, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'mode=0755,size=16m', 'probe-lint-e2e', path]);
  return made;
}

/**
 * `address`: the node's name and InternalIP (default 127.0.0.1). The API server refuses to proxy to
 * a node whose address is loopback (pkg/registry/core/node/strategy.go, isProxyableHostname), so a
 * test that reads the kubelet through the node proxy gives a documentation address (203.0.113.0/24):
 * it is put on the loopback device of the suite's own network namespace, where nothing else is.
 */
export async function startNode(
  cluster: Cluster,
  options: { images?: string[]; address?: string; featureGates?: Record<string, boolean> } = {},
): Promise<Node> {
  const nodeName = options.address ?? NODE_NAME;
  if (nodeName !== NODE_NAME) execFileSync('ip', ['address', 'add', `${nodeName}/32`, 'dev', 'lo']);
  const binaries = controlPlaneBinaries();
  const directory = join(cluster.directory, 'node');
  const logs = join(cluster.directory, 'logs');
  const shared = join(directory, 'shared');
  for (const sub of ['containerd/root', 'containerd/state', 'containerd/opt', 'kubelet', 'pod-logs', 'sysctl', 'shared', 'cni/conf', 'cni/ipam'])
    mkdirSync(join(directory, sub), { recursive: true });
  const madeDirectories = HOST_RUN_DIRECTORIES.map(privateTmpfs).filter((path): path is string => path !== undefined);
  writeFileSync(
    join(directory, 'cni/conf/10-probe-lint-e2e.conflist'),
    JSON.stringify({
      cniVersion: '0.4.0',
      name: 'probe-lint-e2e',
      plugins: [
        {
          type: 'bridge',
          bridge: BRIDGE,
          isGateway: true,
          ipMasq: false,
          hairpinMode: true,
          ipam: { type: 'host-local', dataDir: join(directory, 'cni/ipam'), ranges: [[{ subnet: POD_SUBNET }]], routes: [{ dst: '0.0.0.0/0' }] },
        },
      ],
    }),
  );
  const socket = join(directory, 'containerd.sock');
  const cgroupRoot = `/${cluster.directory.split('/').at(-1)!}`;

  // The sysctls the kubelet would write, already at its values inside this mount namespace.
  const sysctlMounts: string[] = [];
  for (const [name, value] of Object.entries(KUBELET_SYSCTLS)) {
    const file = join(directory, 'sysctl', name.replaceAll('/', '.'));
    writeFileSync(file, `${value}\n`);
    execFileSync('mount', ['--bind', file, `/proc/sys/${name}`]);
    sysctlMounts.push(`/proc/sys/${name}`);
  }
  const cgroups = hierarchies().map((hierarchy) => join(hierarchy, cgroupRoot));
  for (const path of cgroups) {
    mkdirSync(path, { recursive: true });
    // A new cpuset cgroup has no CPUs or memory nodes of its own; give it its parent's.
    if (path.startsWith('/sys/fs/cgroup/cpuset/')) {
      for (const file of ['cpuset.cpus', 'cpuset.mems']) writeFileSync(join(path, file), readFileSync(join('/sys/fs/cgroup/cpuset', file)));
    }
  }

  const containerdConfig = join(directory, 'containerd.toml');
  writeFileSync(
    containerdConfig,
    `version = 2
root = "${directory}/containerd/root"
state = "${directory}/containerd/state"
[grpc]
  address = "${socket}"
[ttrpc]
  address = "${socket}.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "${directory}/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${PAUSE_IMAGE}"
  restrict_oom_score_adj = true
  disable_apparmor = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "${CNI_PLUGINS}"
    conf_dir = "${directory}/cni/conf"
`,
  );
  const containerd = startProcess('containerd', ['--config', containerdConfig], join(logs, 'containerd.log'));
  const ctr = (...args: string[]) =>
    execFileSync('ctr', ['--address', socket, '--namespace', 'k8s.io', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  for (let attempt = 0; ; attempt++) {
    try {
      ctr('version');
      break;
    } catch (error) {
      if (attempt > 100 || containerd.exitCode !== null) throw new Error(`containerd did not start; see ${join(logs, 'containerd.log')}`, { cause: error });
      await wait(100);
    }
  }
  for (const image of [join(binaries, 'images/pause.tar'), join(binaries, 'images/app.tar'), ...(options.images ?? [])])
    ctr('images', 'import', '--snapshotter', 'native', image);

  const serving = cluster.pki.issue('kubelet', { serverNames: [nodeName, 'localhost'] });
  const kubeletConfig = join(directory, 'kubelet.yaml');
  writeFileSync(
    kubeletConfig,
    `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: ${nodeName}
port: ${await freePort()}
readOnlyPort: 0
healthzPort: 0
tlsCertFile: ${serving.cert}
tlsPrivateKeyFile: ${serving.key}
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: ${cluster.pki.caCert}}
authorization: {mode: AlwaysAllow}
containerRuntimeEndpoint: unix://${socket}
cgroupDriver: cgroupfs
cgroupRoot: ${cgroupRoot}
failCgroupV1: false
failSwapOn: false
podLogsDir: ${directory}/pod-logs
resolvConf: ""
hairpinMode: none
localStorageCapacityIsolation: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 1Mi, nodefs.available: 1Mi, imagefs.available: 1Mi}
featureGates: ${JSON.stringify(options.featureGates ?? {})}
`,
  );
  const kubelet = startProcess(
    join(binaries, 'kubelet'),
    ['--config', kubeletConfig, '--kubeconfig', cluster.kubeconfig, '--hostname-override', nodeName, '--root-dir', join(directory, 'kubelet'), '--v', '2'],
    join(logs, 'kubelet.log'),
  );
  for (let attempt = 0; ; attempt++) {
    const node = await cluster.api('GET', `/api/v1/nodes/${nodeName}`);
    if (node.status === 200) break;
    if (attempt > 600 || kubelet.exitCode !== null) throw new Error(`the kubelet did not register its node; see ${join(logs, 'kubelet.log')}`);
    await wait(100);
  }

  return {
    name: nodeName,
    shared,
    containerLog(namespace, pod, container) {
      // <podLogsDir>/<namespace>_<pod>_<uid>/<container>/<restart>.log
      const podDirectory = readdirSync(join(directory, 'pod-logs')).find((entry) => entry.startsWith(`${namespace}_${pod}_`));
      if (podDirectory === undefined) return '';
      const logs = join(directory, 'pod-logs', podDirectory, container);
      return existsSync(logs)
        ? readdirSync(logs)
            .sort()
            .map((file) => readFileSync(join(logs, file), 'utf8'))
            .join('')
        : '';
    },
    async stop() {
      await stopProcess(kubelet);
      // Every container the kubelet left: killed, then removed with its sandbox.
      for (const task of ctr('tasks', 'ls', '--quiet').split('\n').filter(Boolean)) {
        try {
          ctr('tasks', 'kill', '--signal', 'SIGKILL', task);
        } catch {
          // already gone
        }
      }
      for (let attempt = 0; attempt < 50 && ctr('tasks', 'ls', '--quiet').trim() !== ''; attempt++) {
        for (const task of ctr('tasks', 'ls', '--quiet').split('\n').filter(Boolean)) {
          try {
            ctr('tasks', 'delete', '--force', task);
          } catch {
            // still stopping
          }
        }
        await wait(100);
      }
      await stopProcess(containerd);
      // A shim outlives containerd by design; these are this node's (their command line names its socket).
      try {
        execFileSync('pkill', ['-KILL', '-f', socket]);
      } catch {
        // none left
      }
      for (let attempt = 0; attempt < 50; attempt++) {
        try {
          execFileSync('pgrep', ['-f', socket], { stdio: 'ignore' });
          await wait(100);
        } catch {
          break;
        }
      }
      for (const point of [...mountsUnder(directory), ...sysctlMounts, ...HOST_RUN_DIRECTORIES.flatMap(mountsUnder)]) execFileSync('umount', ['--lazy', point]);
      for (const path of madeDirectories) rmdirSync(path);
      for (const path of cgroups) removeCgroup(path);
      if (bridgeExists()) execFileSync('ip', ['link', 'delete', BRIDGE]);
      if (nodeName !== NODE_NAME) execFileSync('ip', ['address', 'delete', `${nodeName}/32`, 'dev', 'lo']);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

function bridgeExists(): boolean {
  return execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).includes(`: ${BRIDGE}:`);
}

/** What the node left behind: processes, mounts, cgroups and its bridge (empty after a clean stop). */
export function nodeLeftovers(cluster: Cluster): string[] {
  const directory = join(cluster.directory, 'node');
  const cgroupRoot = `/${cluster.directory.split('/').at(-1)!}`;
  const left: string[] = [];
  try {
    left.push(...execFileSync('pgrep', ['-af', directory], { encoding: 'utf8' }).split('\n').filter(Boolean));
  } catch {
    // no process
  }
  left.push(...mountsUnder(directory).map((point) => `mount ${point}`));
  for (const name of Object.keys(KUBELET_SYSCTLS)) if (mountsUnder(`/proc/sys/${name}`).length > 0) left.push(`mount /proc/sys/${name}`);
  left.push(...HOST_RUN_DIRECTORIES.flatMap(mountsUnder).map((point) => `mount ${point}`));
  if (bridgeExists()) left.push(`link ${BRIDGE}`);
  for (const hierarchy of hierarchies()) if (existsSync(join(hierarchy, cgroupRoot))) left.push(`cgroup ${join(hierarchy, cgroupRoot)}`);
  if (existsSync(directory)) left.push(`directory ${directory}`);
  return left;
}

/**
 * The pod spec of the test app on the node: hostNetwork on its own `port`, its probes' httpGet aimed
 * at that port, its event log in the node's shared directory as <log>.jsonl.
 */
export function appPodSpec(
  node: Node,
  options: { port: number; log: string; probes: Record<string, unknown>; env?: Record<string, string> },
): Record<string, unknown> {
  const aim = (probe: any) => (probe?.httpGet ? { ...probe, httpGet: { ...probe.httpGet, port: options.port } } : probe);
  return {
    nodeName: node.name,
    hostNetwork: true,
    automountServiceAccountToken: false,
    terminationGracePeriodSeconds: 5,
    containers: [
      {
        name: 'app',
        image: APP_IMAGE,
        imagePullPolicy: 'Never',
        ports: [{ containerPort: options.port }],
        env: Object.entries({ PORT: String(options.port), LOG: `/shared/${options.log}.jsonl`, ...options.env }).map(([name, value]) => ({ name, value })),
        volumeMounts: [{ name: 'shared', mountPath: '/shared' }],
        ...Object.fromEntries(Object.entries(options.probes).map(([key, probe]) => [key, aim(probe)])),
      },
    ],
    volumes: [{ name: 'shared', hostPath: { path: node.shared } }],
  };
}

/** A Deployment of one replica in `default` whose Pods are `spec` (an appPodSpec). */
export function appDeployment(name: string, spec: Record<string, unknown>) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec } },
  };
}

/** Switches the test app's health; the app's own time of the switch (ms since the epoch). */
export async function setHealth(port: number, health: 'ok' | 'fail' | 'hang' | 'slow'): Promise<number> {
  const reply = await fetch(`http://127.0.0.1:${port}/health/${health}`, { method: 'POST' });
  if (reply.status !== 200) throw new Error(`the app on port ${port} answered ${reply.status} to its health switch`);
  return Number((await reply.text()).trim());
}
