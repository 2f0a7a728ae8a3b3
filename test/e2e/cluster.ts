// A real Kubernetes control plane for the end-to-end tests: etcd, kube-apiserver and
// kube-controller-manager, built from source (test/cluster/build-k8s.sh), on loopback with free
// ports, a self-made CA, an admin client certificate, service-account keys and RBAC. No scheduler:
// Pods stay Pending, which is all admission needs; a node (node.ts) runs the Pods that name it.
// With `pods`, the cluster is one Pods of its own node call and are called by: see ClusterOptions.
//
// The tests run in a network namespace of their own (scripts/e2e.sh): loopback is up and the
// Service CIDR 10.96.0.0/16 is routed locally, so when the API server calls a webhook Service at
// its ClusterIP on port 443 (the API server's ClusterIP service resolver), it reaches the
// `probe-lint serve` process listening there, and verifies the chart's own certificate.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { ROOT } from '../helpers.js';
import { kubectlBinary } from '../tools.js';
import { makeTestPki, type TestPki } from '../tls.js';

export const SERVICE_CIDR = '10.96.0.0/16';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Cluster {
  directory: string;
  server: string;
  /** An admin (system:masters) kubeconfig. */
  kubeconfig: string;
  pki: TestPki;
  kubectl(args: string[], options?: { input?: string; kubeconfig?: string }): Promise<CommandResult>;
  /** One API request as admin; JSON in and out. */
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; json: any; headers: Record<string, unknown> }>;
  /** The admin client certificate (system:masters). */
  admin: { ca: string; cert: string; key: string };
  /** A kubeconfig that authenticates with a bearer token (a ServiceAccount's). */
  tokenKubeconfig(name: string, token: string): string;
  stopApiServer(): Promise<void>;
  startApiServer(): Promise<void>;
  stop(): Promise<void>;
}

/** The directory build-k8s.sh built the binaries into (building what is missing). */
export function controlPlaneBinaries(): string {
  const output = execFileSync(join(ROOT, 'test/cluster/build-k8s.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const directory = output.trim().split('\n').at(-1)!;
  for (const name of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubelet', 'images/pause.tar', 'images/app.tar']) {
    if (!existsSync(join(directory, name))) throw new Error(`${name} is missing from ${directory}`);
  }
  return directory;
}

/** A port the kernel says is free now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const children = new Set<ChildProcess>();
// However the run ends, no etcd or API server outlives it (scripts/e2e.sh checks that too).
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Starts a process of the run, its output kept for `log`; it is killed if the test process exits first. */
export function startProcess(binary: string, args: string[], log: string): ChildProcess {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.on('exit', () => {
    children.delete(child);
    writeFileSync(log, Buffer.concat(chunks));
  });
  children.add(child);
  return child;
}

/** SIGTERM, then SIGKILL after 10 s. */
export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

function kubeconfigFor(server: string, caCert: string, user: Record<string, string>): string {
  const userLines = Object.entries(user)
    .map(([key, value]) => `      ${key}: ${value}`)
    .join('\n');
  return `apiVersion: v1
kind: Config
clusters:
  - name: e2e
    cluster:
      server: ${server}
      certificate-authority: ${caCert}
users:
  - name: user
    user:
${userLines}
contexts:
  - name: e2e
    context: {cluster: e2e, user: user, namespace: default}
current-context: e2e
`;
}

export interface ClusterOptions {
  apiServerArgs?: string[];
  /**
   * For workloads that run as Pods on the node (node.ts, whose Pods have addresses of their own on
   * its bridge): a scheduler places them; the node lifecycle controller lifts the not-ready taint
   * the API server puts on a new Node; the API server listens on every address of the suite's
   * network namespace at port 443, so a Pod's in-cluster client reaches it at the kubernetes
   * Service's ClusterIP (routed to the namespace itself, scripts/e2e.sh); and it calls webhook
   * Services at their endpoints (`--enable-aggregator-routing`): there is no kube-proxy to carry a
   * ClusterIP to a Pod.
   */
  pods?: boolean;
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const binaries = controlPlaneBinaries();
  const directory = mkdtempSync(join(tmpdir(), 'probe-lint-e2e-'));
  const pki = makeTestPki();
  const [etcdClient, etcdPeer, controllerPort, schedulerPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const securePort = options.pods ? 443 : await freePort();
  const server = `https://127.0.0.1:${securePort}`;
  const serving = pki.issue('kube-apiserver', {
    serverNames: ['localhost', '127.0.0.1', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', '10.96.0.1'],
  });
  const admin = pki.issue('admin', { client: true, organization: 'system:masters' });
  const controller = pki.issue('system:kube-controller-manager', { client: true });
  // How the API server proves itself to a kubelet (its node proxy: logs, exec, /metrics/probes).
  const kubeletClient = pki.issue('kube-apiserver-kubelet-client', { client: true, organization: 'system:masters' });
  const serviceAccountKey = join(directory, 'sa.key');
  execFileSync('openssl', ['genrsa', '-out', serviceAccountKey, '2048'], { stdio: 'ignore' });
  const serviceAccountPub = join(directory, 'sa.pub');
  execFileSync('openssl', ['rsa', '-in', serviceAccountKey, '-pubout', '-out', serviceAccountPub], { stdio: 'ignore' });
  const kubeconfig = join(directory, 'admin.kubeconfig');
  writeFileSync(kubeconfig, kubeconfigFor(server, pki.caCert, { 'client-certificate': admin.cert, 'client-key': admin.key }));
  const controllerKubeconfig = join(directory, 'controller-manager.kubeconfig');
  writeFileSync(controllerKubeconfig, kubeconfigFor(server, pki.caCert, { 'client-certificate': controller.cert, 'client-key': controller.key }));
  mkdirSync(join(directory, 'logs'));

  const etcd = startProcess(
    join(binaries, 'etcd'),
    [
      '--data-dir',
      join(directory, 'etcd'),
      '--listen-client-urls',
      `http://127.0.0.1:${etcdClient}`,
      '--advertise-client-urls',
      `http://127.0.0.1:${etcdClient}`,
      '--listen-peer-urls',
      `http://127.0.0.1:${etcdPeer}`,
      '--initial-advertise-peer-urls',
      `http://127.0.0.1:${etcdPeer}`,
      '--initial-cluster',
      `default=http://127.0.0.1:${etcdPeer}`,
      '--quota-backend-bytes',
      String(4 * 1024 ** 3),
      '--unsafe-no-fsync',
    ],
    join(directory, 'logs/etcd.log'),
  );
  const apiServerArgs = [
    '--etcd-servers',
    `http://127.0.0.1:${etcdClient}`,
    '--bind-address',
    options.pods ? '0.0.0.0' : '127.0.0.1',
    ...(options.pods ? ['--enable-aggregator-routing=true'] : []),
    '--advertise-address',
    '127.0.0.1',
    // Loopback cannot be an endpoint of the kubernetes Service; nothing here needs that endpoint.
    '--endpoint-reconciler-type',
    'none',
    '--secure-port',
    String(securePort),
    '--tls-cert-file',
    serving.cert,
    '--tls-private-key-file',
    serving.key,
    '--client-ca-file',
    pki.caCert,
    '--kubelet-client-certificate',
    kubeletClient.cert,
    '--kubelet-client-key',
    kubeletClient.key,
    '--kubelet-certificate-authority',
    pki.caCert,
    '--service-account-issuer',
    'https://kubernetes.default.svc',
    '--service-account-key-file',
    serviceAccountPub,
    '--service-account-signing-key-file',
    serviceAccountKey,
    '--service-cluster-ip-range',
    SERVICE_CIDR,
    '--authorization-mode',
    'RBAC',
    '--enable-priority-and-fairness=false',
    '--max-requests-inflight',
    '2000',
    '--max-mutating-requests-inflight',
    '1000',
    '--profiling=false',
    ...(options.apiServerArgs ?? []),
  ];
  let apiServer: ChildProcess | undefined;
  let restarts = 0;

  const api: Cluster['api'] = (method, path, body, headers = {}) =>
    new Promise((resolve, reject) => {
      const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const req = request(
        new URL(path, server),
        {
          method,
          ca: readFileSync(pki.caCert),
          cert: readFileSync(admin.cert),
          key: readFileSync(admin.key),
          headers: { accept: 'application/json', ...(text === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
          agent: false,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const raw = Buffer.concat(chunks).toString('utf8');
            let json: unknown;
            try {
              json = JSON.parse(raw);
            } catch {
              json = raw;
            }
            resolve({ status: res.statusCode ?? 0, json, headers: res.headers });
          });
        },
      );
      req.on('error', reject);
      req.end(text);
    });

  const waitReady = async (what: string) => {
    for (let attempt = 0; attempt < 600; attempt++) {
      const ready = await api('GET', '/readyz').then(
        (reply) => reply.status === 200,
        () => false,
      );
      if (ready) return;
      if (apiServer?.exitCode !== null && apiServer?.exitCode !== undefined) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${what}: kube-apiserver did not become ready; see ${join(directory, 'logs')}`);
  };

  const startApiServer = async () => {
    apiServer = startProcess(join(binaries, 'kube-apiserver'), apiServerArgs, join(directory, `logs/kube-apiserver-${restarts++}.log`));
    await waitReady('start');
  };
  await startApiServer();
  const controllerManager = startProcess(
    join(binaries, 'kube-controller-manager'),
    [
      '--kubeconfig',
      controllerKubeconfig,
      '--authentication-kubeconfig',
      controllerKubeconfig,
      '--authorization-kubeconfig',
      controllerKubeconfig,
      '--bind-address',
      '127.0.0.1',
      '--secure-port',
      String(controllerPort),
      '--service-account-private-key-file',
      serviceAccountKey,
      '--root-ca-file',
      pki.caCert,
      '--use-service-account-credentials',
      '--leader-elect=false',
      // Most nodes here have no kubelet (the density suite's): the node lifecycle controllers would
      // mark them NotReady and evict their pods. A cluster for Pods has only its real node.
      '--controllers',
      options.pods ? '*,-node-ipam-controller' : '*,-node-lifecycle-controller,-taint-eviction-controller,-node-ipam-controller',
      '--kube-api-qps',
      '500',
      '--kube-api-burst',
      '1000',
      '--concurrent-replicaset-syncs',
      '20',
    ],
    join(directory, 'logs/kube-controller-manager.log'),
  );
  let scheduler: ChildProcess | undefined;
  if (options.pods) {
    const identity = pki.issue('system:kube-scheduler', { client: true });
    const schedulerKubeconfig = join(directory, 'scheduler.kubeconfig');
    writeFileSync(schedulerKubeconfig, kubeconfigFor(server, pki.caCert, { 'client-certificate': identity.cert, 'client-key': identity.key }));
    scheduler = startProcess(
      join(binaries, 'kube-scheduler'),
      [
        '--kubeconfig',
        schedulerKubeconfig,
        '--authentication-kubeconfig',
        schedulerKubeconfig,
        '--authorization-kubeconfig',
        schedulerKubeconfig,
        '--bind-address',
        '127.0.0.1',
        '--secure-port',
        String(schedulerPort),
        '--leader-elect=false',
      ],
      join(directory, 'logs/kube-scheduler.log'),
    );
  }

  const kubectl: Cluster['kubectl'] = (args, kubectlOptions = {}) =>
    new Promise((resolve) => {
      const child = spawn(kubectlBinary(), ['--kubeconfig', kubectlOptions.kubeconfig ?? kubeconfig, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(kubectlOptions.input ?? '');
    });

  // The default ServiceAccount of "default" appears once the controller manager runs.
  for (let attempt = 0; attempt < 300; attempt++) {
    if ((await api('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    directory,
    server,
    kubeconfig,
    pki,
    kubectl,
    api,
    admin: { ca: pki.caCert, cert: admin.cert, key: admin.key },
    tokenKubeconfig(name, token) {
      const file = join(directory, `${name}.kubeconfig`);
      writeFileSync(file, kubeconfigFor(server, pki.caCert, { token }));
      return file;
    },
    async stopApiServer() {
      await stopProcess(apiServer);
    },
    startApiServer,
    async stop() {
      await stopProcess(scheduler);
      await stopProcess(controllerManager);
      await stopProcess(apiServer);
      await stopProcess(etcd);
      if (process.env.PROBE_LINT_E2E_KEEP === undefined) rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Creates a namespace and waits for its default ServiceAccount: the controller manager adds it a
 * moment later, and until then the API server refuses a Pod there ("serviceaccount default not found").
 */
export async function createNamespace(cluster: Cluster, name: string, labels: Record<string, string> = {}): Promise<void> {
  const created = await cluster.api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
  if (created.status !== 201) throw new Error(`creating namespace ${name}: HTTP ${created.status}`);
  for (let attempt = 0; (await cluster.api('GET', `/api/v1/namespaces/${name}/serviceaccounts/default`)).status !== 200; attempt++) {
    if (attempt === 300) throw new Error(`namespace ${name}: no default ServiceAccount after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
