// Reads from the API server with @kubernetes/client-node's KubeConfig (auth, TLS, contexts) and
// its Watch; list calls are plain JSON GETs so that only counts and names are kept, page by page.
import { existsSync } from 'node:fs';
import { request, type RequestOptions } from 'node:https';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { boundedRequest } from './bounded-request.js';

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

/**
 * What one API server response may hold. A page of 500 Pods is a few MiB; an answer past this is
 * not a Kubernetes list but a server (or something posing as one) that never stops, and reading it
 * would grow memory without bound.
 */
export const RESPONSE_LIMITS = {
  maxResponseBytes: 64 * 1024 * 1024,
  /** Pages of one list: 10,000 pages of 500 are five million objects. */
  maxPages: 10_000,
  /**
   * Objects and bytes of one list, whatever its continue tokens say: what a caller may end up holding.
   * A million objects is several times the largest clusters (150,000 Pods); 4 GiB is 500 KiB per Pod of those.
   */
  maxListItems: 1_000_000,
  maxListBytes: 4 * 1024 * 1024 * 1024,
  /**
   * Bytes of every list this client reads, in all: what a caller that keeps what it lists (audit)
   * holds at the end. Unbounded by default (the webhook's refresher keeps counts, not objects).
   */
  maxReadBytes: Number.POSITIVE_INFINITY,
  /** One watch event. */
  maxEventBytes: 16 * 1024 * 1024,
};

export type ResponseLimits = typeof RESPONSE_LIMITS;

/**
 * audit keeps every object it lists until it reports: 512 MiB of JSON in all, which parsed takes about
 * twice that, stays well below its CronJob's 2 GiB memory limit (the chart's auditReports.resources),
 * however many pages with fresh continue tokens a server sends. A cluster larger than that is audited
 * a namespace at a time (-n).
 */
export const AUDIT_READ_LIMITS: Partial<ResponseLimits> = { maxReadBytes: 512 * 1024 * 1024 };

export class KubeClient {
  readonly limits: ResponseLimits;
  /** Bytes of list pages read so far, for maxReadBytes. */
  private readBytes = 0;

  constructor(
    readonly config: KubeConfig,
    limits: Partial<ResponseLimits> = {},
  ) {
    this.limits = { ...RESPONSE_LIMITS, ...limits };
  }

  /** One GET of a JSON resource, in the representation `accept` asks for, read up to the response limit. */
  async getJson<T>(path: string, query: Record<string, string | number | undefined>, signal: AbortSignal, accept = 'application/json'): Promise<T> {
    return (await this.send<T>('GET', path, query, signal, { accept })).value;
  }

  /** One GET of a text resource (a kubelet's metrics through the node proxy), read up to the response limit. */
  async getText(path: string, signal: AbortSignal, accept: string): Promise<string> {
    return (await this.send<string>('GET', path, {}, signal, { accept, parse: (text) => text })).value;
  }

  /** Server-side apply of one object (the API server merges what this field manager owns; force takes over conflicts). */
  async apply<T>(path: string, object: unknown, signal: AbortSignal): Promise<T> {
    return (
      await this.send<T>('PATCH', path, { fieldManager: 'probe-lint', force: 'true' }, signal, {
        body: JSON.stringify(object),
        contentType: 'application/apply-patch+yaml',
      })
    ).value;
  }

  /** Deletes one object. */
  async delete(path: string, signal: AbortSignal): Promise<unknown> {
    return (await this.send('DELETE', path, {}, signal, {})).value;
  }

  /** One request, its JSON answer (and its size) read up to the response limit; a status of 300 or more is an ApiStatusError. */
  private async send<T>(
    method: string,
    path: string,
    query: Record<string, string | number | undefined>,
    signal: AbortSignal,
    options: { accept?: string; body?: string; contentType?: string; parse?: (text: string) => T },
  ): Promise<{ value: T; bytes: number }> {
    const { url, options: requestOptions } = await this.requestFor(path, query, options.accept ?? 'application/json');
    requestOptions.method = method;
    if (options.contentType !== undefined) requestOptions.headers = { ...requestOptions.headers, 'content-type': options.contentType };
    const limit = this.limits.maxResponseBytes;
    const {
      status,
      body: text,
      bytes,
    } = await boundedRequest(
      request,
      url,
      { ...requestOptions, signal },
      options.body,
      limit,
      () => new Error(`${method} ${url.pathname}: the response is larger than ${limit / 1024 / 1024} MiB; refusing to read more`),
    );
    if (status >= 300) throw new ApiStatusError(status, `${method} ${url.pathname}: HTTP ${status} ${text.slice(0, 200)}`);
    if (options.parse !== undefined) return { value: options.parse(text), bytes };
    try {
      return { value: JSON.parse(text) as T, bytes };
    } catch (error) {
      throw new Error(`${method} ${url.pathname}: not JSON: ${(error as Error).message}`, { cause: error });
    }
  }

  /**
   * Every page of a list (`limit` / `continue`), handed to `onPage` and then dropped; returns the
   * resourceVersion. `answered` is told of each page (the guard's per-request deadline).
   */
  async listPaged<T>(
    path: string,
    query: Record<string, string | number | undefined>,
    signal: AbortSignal,
    onPage: (items: T[]) => void,
    answered?: () => void,
  ): Promise<string | undefined> {
    let resourceVersion: string | undefined;
    await this.pages<KubeList<T>>(
      path,
      query,
      'application/json',
      signal,
      (page) => {
        onPage(Array.isArray(page.items) ? page.items : []);
        resourceVersion = page.metadata?.resourceVersion;
      },
      answered,
    );
    return resourceVersion;
  }

  /** Every page of a list asked for as a Table (`accept`), each handed to `onPage` and dropped. */
  async listTablePaged<T>(
    path: string,
    query: Record<string, string | number | undefined>,
    accept: string,
    signal: AbortSignal,
    onPage: (page: T) => void,
    answered?: () => void,
  ): Promise<void> {
    await this.pages<T & { metadata?: { continue?: string } }>(path, query, accept, signal, onPage, answered);
  }

  /** Follows `continue` tokens: at most maxPages pages, and a token seen before (a server that loops) is an error. */
  private async pages<T extends { metadata?: { continue?: string } }>(
    path: string,
    query: Record<string, string | number | undefined>,
    accept: string,
    signal: AbortSignal,
    onPage: (page: T) => void,
    answered: (() => void) | undefined,
  ): Promise<void> {
    const seen = new Set<string>();
    let token: string | undefined;
    let count = 0;
    let items = 0;
    let bytes = 0;
    do {
      if (++count > this.limits.maxPages) throw new Error(`GET ${path}: more than ${this.limits.maxPages} pages; refusing to read more`);
      const answer = await this.send<T & { items?: unknown }>('GET', path, { ...query, limit: query.limit ?? 500, continue: token }, signal, { accept });
      const page = answer.value;
      answered?.();
      bytes += answer.bytes;
      this.readBytes += answer.bytes;
      if (this.readBytes > this.limits.maxReadBytes)
        throw new Error(
          `GET ${path}: more than ${this.limits.maxReadBytes / 1024 / 1024} MiB read from the cluster in all, the most this run keeps; refusing to read more (audit a namespace at a time with -n)`,
        );
      items += Array.isArray(page.items) ? page.items.length : 0;
      if (items > this.limits.maxListItems) throw new Error(`GET ${path}: more than ${this.limits.maxListItems} objects; refusing to read more`);
      if (bytes > this.limits.maxListBytes)
        throw new Error(`GET ${path}: more than ${this.limits.maxListBytes / 1024 / 1024} MiB in all; refusing to read more`);
      onPage(page);
      const next = page.metadata?.continue;
      token = typeof next === 'string' && next !== '' ? next : undefined;
      if (token !== undefined) {
        if (seen.has(token)) throw new Error(`GET ${path}: the server returned the same continue token twice; the list would never end`);
        seen.add(token);
      }
    } while (token !== undefined);
  }

  /**
   * A watch stream, one JSON event per line, each line at most maxEventBytes. Resolves once the
   * stream is open; `done` is called when it ends (with the error, or an ApiStatusError when the
   * server refused to start it).
   */
  async watch<T>(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    onEvent: (type: string, object: T) => void,
    done: (error: unknown) => void,
    startSignal?: AbortSignal,
  ): Promise<AbortController> {
    const controller = new AbortController();
    const { url, options } = await this.requestFor(path, { ...stringQuery(query), watch: 'true' }, 'application/json');
    const limit = this.limits.maxEventBytes;
    // A start that misses its caller's deadline is closed, not left open to deliver events later.
    let opened = false;
    startSignal?.addEventListener('abort', () => opened || controller.abort(), { once: true });
    return new Promise((resolve) => {
      let finished = false;
      const finish = (error: unknown) => {
        if (finished) return;
        finished = true;
        done(error);
      };
      const req = request(url, { ...options, signal: controller.signal }, (res) => {
        opened = true;
        if ((res.statusCode ?? 500) >= 300) {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            if (text.length < 4096) text += chunk.toString('utf8');
          });
          res.on('end', () => finish(new ApiStatusError(res.statusCode ?? 500, `WATCH ${url.pathname}: HTTP ${res.statusCode} ${text.slice(0, 200)}`)));
          res.on('error', finish);
          resolve(controller);
          return;
        }
        let pending: Buffer[] = [];
        let pendingBytes = 0;
        const line = (bytes: Buffer) => {
          if (bytes.length === 0) return;
          try {
            const event = JSON.parse(bytes.toString('utf8')) as { type?: unknown; object?: unknown };
            if (typeof event.type === 'string') onEvent(event.type, event.object as T);
          } catch {
            // A line that is not JSON is skipped, as client-node's Watch does.
          }
        };
        res.on('data', (chunk: Buffer) => {
          let start = 0;
          for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
            pending.push(chunk.subarray(start, newline));
            line(Buffer.concat(pending));
            pending = [];
            pendingBytes = 0;
            start = newline + 1;
          }
          if (start < chunk.length) {
            pending.push(chunk.subarray(start));
            pendingBytes += chunk.length - start;
            if (pendingBytes > limit) req.destroy(new Error(`WATCH ${url.pathname}: an event larger than ${limit / 1024 / 1024} MiB; refusing to read more`));
          }
        });
        res.on('end', () => finish(null));
        res.on('error', finish);
        resolve(controller);
      });
      req.on('error', (error) => {
        finish(controller.signal.aborted ? null : error);
        resolve(controller);
      });
      req.end();
    });
  }

  private async requestFor(path: string, query: Record<string, string | number | undefined>, accept: string): Promise<{ url: URL; options: RequestOptions }> {
    const cluster = this.config.getCurrentCluster()!;
    const url = new URL(cluster.server.replace(/\/$/, '') + path);
    for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') url.searchParams.set(key, String(value));
    const options: RequestOptions = { method: 'GET', headers: { accept } };
    await this.config.applyToHTTPSOptions(options);
    return { url, options };
  }
}

function stringQuery(query: Record<string, string | number | boolean | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(query).map(([key, value]) => [key, value === undefined ? undefined : String(value)]));
}
