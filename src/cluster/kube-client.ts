// Reads from the API server with @kubernetes/client-node's KubeConfig (auth, TLS, contexts) and
// its Watch; list calls are plain JSON GETs so that only counts and names are kept, page by page.
import { existsSync } from 'node:fs';
import { request, type RequestOptions } from 'node:https';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig, Watch } from '@kubernetes/client-node';

export interface KubeList<T> {
  metadata?: { continue?: string; resourceVersion?: string };
  items: T[];
}

/** An HTTP status from the API server, e.g. 410 Gone for an expired resourceVersion. */
export class ApiStatusError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * Finds the cluster the way kubectl does: --kubeconfig, else $KUBECONFIG (a list of files, merged
 * by client-node), else ~/.kube/config, else the pod's service account when running in a cluster.
 */
export function loadKubeConfig(
  file: string | undefined,
  context: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): KubeConfig {
  const config = new KubeConfig();
  const home = env.HOME ?? homedir();
  const defaultFile = join(home, '.kube', 'config');
  const listed = (env.KUBECONFIG ?? '').split(delimiter).filter((path) => path !== '');
  try {
    if (file !== undefined) {
      if (!existsSync(file)) throw new Error(`the kubeconfig ${file} does not exist`);
      config.loadFromFile(file);
    } else if (listed.some((path) => existsSync(path))) {
      config.loadFromDefault();
    } else if (existsSync(defaultFile)) {
      config.loadFromFile(defaultFile);
    } else if (env.KUBERNETES_SERVICE_HOST && existsSync(SERVICE_ACCOUNT_TOKEN)) {
      config.loadFromCluster();
    } else {
      throw new Error('no kubeconfig found (looked in $KUBECONFIG, ~/.kube/config, in-cluster); give --kubeconfig FILE');
    }
  } catch (error) {
    const message = (error as Error).message;
    throw new Error(message.startsWith('no kubeconfig') || message.startsWith('the kubeconfig') ? message : `cannot use the kubeconfig: ${message}`, {
      cause: error,
    });
  }
  if (context !== undefined) {
    if (config.getContextObject(context) === null)
      throw new Error(
        `the kubeconfig has no context "${context}" (it has: ${
          config
            .getContexts()
            .map((candidate) => candidate.name)
            .join(', ') || 'none'
        })`,
      );
    config.setCurrentContext(context);
  }
  if (config.getCurrentCluster() === null) throw new Error(`no cluster in the kubeconfig${context ? ` for context "${context}"` : ''}`);
  return config;
}

export class KubeClient {
  constructor(readonly config: KubeConfig) {}

  /** One GET of a JSON resource, in the representation `accept` asks for. */
  async getJson<T>(path: string, query: Record<string, string | number | undefined>, signal: AbortSignal, accept = 'application/json'): Promise<T> {
    const cluster = this.config.getCurrentCluster()!;
    const url = new URL(cluster.server.replace(/\/$/, '') + path);
    for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') url.searchParams.set(key, String(value));
    const options: RequestOptions = { method: 'GET', headers: { accept } };
    await this.config.applyToHTTPSOptions(options);
    return new Promise<T>((resolve, reject) => {
      const req = request(url, { ...options, signal }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 500) >= 300) {
            reject(new ApiStatusError(res.statusCode ?? 500, `GET ${url.pathname}: HTTP ${res.statusCode} ${text.slice(0, 200)}`));
            return;
          }
          try {
            resolve(JSON.parse(text) as T);
          } catch (error) {
            reject(new Error(`GET ${url.pathname}: not JSON: ${(error as Error).message}`));
          }
        });
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** Every page of a list (`limit` / `continue`), handed to `onPage` and then dropped; returns the resourceVersion. */
  async listPaged<T>(
    path: string,
    query: Record<string, string | number | undefined>,
    signal: AbortSignal,
    onPage: (items: T[]) => void,
  ): Promise<string | undefined> {
    let token: string | undefined;
    let resourceVersion: string | undefined;
    do {
      const page = await this.getJson<KubeList<T>>(path, { ...query, limit: query.limit ?? 500, continue: token }, signal);
      onPage(page.items ?? []);
      token = page.metadata?.continue || undefined;
      resourceVersion = page.metadata?.resourceVersion;
    } while (token !== undefined);
    return resourceVersion;
  }

  /** Every page of a list asked for as a Table (`accept`), each handed to `onPage` and dropped. */
  async listTablePaged<T>(
    path: string,
    query: Record<string, string | number | undefined>,
    accept: string,
    signal: AbortSignal,
    onPage: (page: T) => void,
  ): Promise<void> {
    let token: string | undefined;
    do {
      const page = await this.getJson<T & { metadata?: { continue?: string } }>(path, { ...query, limit: query.limit ?? 500, continue: token }, signal, accept);
      onPage(page);
      token = page.metadata?.continue || undefined;
    } while (token !== undefined);
  }

  /** client-node's Watch; resolves once the stream is open, `done` is called when it ends. */
  watch<T>(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    onEvent: (type: string, object: T) => void,
    done: (error: unknown) => void,
  ): Promise<AbortController> {
    return new Watch(this.config).watch(path, query, onEvent as (type: string, object: unknown) => void, done);
  }
}
