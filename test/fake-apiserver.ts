// A local HTTPS server that speaks the Kubernetes list/watch wire format: JSON lists paginated with
// `limit` and `metadata.continue`, watch streams of JSON events, 410 Gone for an expired
// resourceVersion. It can be told to fail, hang, go down and recover, and it writes a kubeconfig
// that points at it — so the real @kubernetes/client-node code talks to it.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestPki } from './tls.js';

export type ApiMode = 'ok' | 'fail' | 'hang';

/** Answers a hostile (or broken) API server gives: a list that never ends, a continue token that repeats (or never does), a watch event that never ends. */
export type HostileAnswer = 'endless-list' | 'repeated-continue' | 'fresh-continue' | 'endless-event';

type Json = Record<string, any>;

/** The collections probe-lint audit lists: the pod-bearing kinds, Pods and Services. */
export const AUDITED_COLLECTIONS = [
  '/apis/apps/v1/deployments',
  '/apis/apps/v1/statefulsets',
  '/apis/apps/v1/daemonsets',
  '/apis/batch/v1/cronjobs',
  '/apis/batch/v1/jobs',
  '/api/v1/pods',
  '/api/v1/services',
] as const;

export class FakeApiServer {
  mode: ApiMode = 'ok';
  /** Requests answered by nothing while the mode is 'hang', until release(): a test decides when they end, not a clock. */
  private readonly held: { req: IncomingMessage; res: ServerResponse }[] = [];
  hostile: HostileAnswer | undefined;
  /** Bytes written by the hostile answers, to tell how much a client read before it stopped. */
  hostileBytes = 0;
  /** Collections by API path without namespace, e.g. "/api/v1/nodes", "/apis/apps/v1/deployments". */
  readonly collections = new Map<string, Json[]>();
  readonly requests: string[] = [];
  resourceVersion = 100;
  /** The oldest resourceVersion a watch may start from; older ones get 410 Gone. */
  oldestWatchable = 0;
  /** Each node's /metrics/probes as the node proxy answers it: one text per read, the last one kept; a number is an HTTP status to answer instead. */
  readonly nodeMetrics = new Map<string, (string | number)[]>();
  /** How long each page of a list takes to be answered (a big cluster's API server under load). */
  pageDelayMs = 0;
  private server: Server | undefined;
  private sockets = new Set<Duplex>();
  private watchers = new Set<ServerResponse>();
  port = 0;

  constructor(private readonly pki: TestPki) {}

  async start(port = 0): Promise<void> {
    const cert = this.pki.issue(`apiserver-${Date.now()}`);
    this.server = createServer({ cert: readFileSync(cert.cert), key: readFileSync(cert.key) }, (req, res) => this.handle(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  /** Goes down hard: every connection dropped, nothing listening. */
  async stop(): Promise<void> {
    for (const watcher of this.watchers) watcher.destroy();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  kubeconfig(directory: string): string {
    const file = join(directory, `kubeconfig-${this.port}`);
    const ca = readFileSync(this.pki.caCert).toString('base64');
    writeFileSync(
      file,
      `apiVersion: v1
kind: Config
clusters:
  - name: fake
    cluster:
      server: https://127.0.0.1:${this.port}
      certificate-authority-data: ${ca}
users:
  - name: tester
    user:
      token: test-token
contexts:
  - name: fake
    context: {cluster: fake, user: tester}
  - name: other
    context: {cluster: fake, user: tester, namespace: other}
current-context: fake
`,
    );
    return file;
  }

  set(path: string, items: Json[]): void {
    this.collections.set(path, items);
  }

  /** Sends a watch event to every open watch on `path`. */
  emit(path: string, type: string, object: Json): void {
    this.resourceVersion++;
    object.metadata = { ...object.metadata, resourceVersion: String(this.resourceVersion) };
    const items = this.collections.get(path) ?? [];
    const index = items.findIndex((item) => item.metadata?.name === object.metadata.name);
    if (type === 'DELETED') {
      if (index >= 0) items.splice(index, 1);
    } else if (index >= 0) items[index] = object;
    else items.push(object);
    this.collections.set(path, items);
    for (const watcher of this.watchers) if ((watcher as any).path === path && !watcher.writableEnded) watcher.write(JSON.stringify({ type, object }) + '\n');
  }

  /** Sends the in-stream 410 the API server sends when a watch's resourceVersion is too old. */
  expireWatches(): void {
    // Compaction: everything up to now is gone; a fresh list returns a newer, watchable version.
    this.resourceVersion++;
    this.oldestWatchable = this.resourceVersion;
    for (const watcher of this.watchers) {
      watcher.write(
        JSON.stringify({
          type: 'ERROR',
          object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410, message: 'too old resource version' },
        }) + '\n',
      );
      watcher.end();
      this.watchers.delete(watcher);
    }
  }

  /** Requests held by 'hang' whose caller has not given up on them yet. */
  get heldRequests(): number {
    return this.held.filter(({ res }) => !res.destroyed && !res.writableEnded && !res.socket?.destroyed).length;
  }

  /** Answers every held request as the current mode would (set it first). */
  release(): void {
    for (const { req, res } of this.held.splice(0)) if (!res.destroyed && !res.socket?.destroyed) this.handle(req, res);
  }

  get openConnections(): number {
    return this.sockets.size;
  }

  get openWatches(): number {
    return this.watchers.size;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'https://localhost');
    this.requests.push(`${url.pathname}${url.search}`);
    if (this.mode === 'hang') {
      // Held, unanswered, until the test releases it (or the caller gives up and closes it).
      this.held.push({ req, res });
      return;
    }
    if (this.mode === 'fail') {
      this.json(res, 500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500, message: 'etcdserver: request timed out' });
      return;
    }
    if (req.headers.authorization !== 'Bearer test-token') {
      this.json(res, 401, { kind: 'Status', code: 401, message: 'Unauthorized' });
      return;
    }
    const proxied = /^\/api\/v1\/nodes\/([^/]+)\/proxy\/metrics\/probes$/.exec(url.pathname);
    if (proxied) {
      const answers = this.nodeMetrics.get(decodeURIComponent(proxied[1]!));
      const answer = answers === undefined ? 404 : answers.length > 1 ? answers.shift()! : answers[0]!;
      if (typeof answer === 'number')
        this.json(res, answer, { kind: 'Status', code: answer, message: `error trying to reach service: node ${proxied[1]} (${answer})` });
      else res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(answer);
      return;
    }
    // /api/v1/namespaces/{ns}/pods → collection "/api/v1/pods" filtered by namespace
    const match = /^(\/apis?\/[^/]+(?:\/[^/]+)?)\/namespaces\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    const [path, namespace] = match ? [`${match[1]}/${match[3]}`, match[2]] : [url.pathname, undefined];
    const collection = this.collections.get(path);
    if (this.hostile !== undefined && collection !== undefined && this.answerHostile(url, res)) return;
    if (collection === undefined) {
      this.json(res, 404, { kind: 'Status', code: 404, message: `${url.pathname} not found` });
      return;
    }
    if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') {
      const from = Number(url.searchParams.get('resourceVersion') ?? 0);
      if (from < this.oldestWatchable) {
        this.json(res, 410, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410, message: 'too old resource version' });
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      // The API server sends a watch's headers at once; Node would hold them until the first event.
      res.flushHeaders();
      (res as any).path = path;
      this.watchers.add(res);
      res.on('close', () => this.watchers.delete(res));
      return;
    }
    let items = collection.filter((item) => namespace === undefined || item.metadata?.namespace === namespace);
    const selector = url.searchParams.get('fieldSelector');
    if (selector?.includes('status.phase!=Succeeded')) items = items.filter((item) => !['Succeeded', 'Failed'].includes(item.status?.phase));
    const limit = Number(url.searchParams.get('limit') ?? 0) || items.length;
    const start = Number(url.searchParams.get('continue') ?? 0);
    const page = items.slice(start, start + limit);
    const next = start + limit < items.length ? String(start + limit) : undefined;
    const metadata = { resourceVersion: String(this.resourceVersion), ...(next ? { continue: next } : {}) };
    if (String(req.headers.accept).includes('as=Table') && url.pathname.endsWith('/pods')) {
      // The API server's pod table (kubectl get pods -o wide), without the objects when includeObject=None.
      const columnDefinitions = ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates'].map((name) => ({
        name,
        type: 'string',
      }));
      const rows = page.map((item) => ({
        cells: [item.metadata?.name, '1/1', item.status?.phase ?? 'Running', 0, '1d', '10.0.0.1', item.spec?.nodeName ?? '<none>', '<none>', '<none>'],
      }));
      this.json(res, 200, { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata, columnDefinitions, rows });
      return;
    }
    const answer = () => this.json(res, 200, { kind: 'List', apiVersion: 'v1', metadata, items: page });
    if (this.pageDelayMs > 0) setTimeout(answer, this.pageDelayMs);
    else answer();
  }

  /** Writes a hostile answer; false when the request is not one it applies to. */
  private answerHostile(url: URL, res: ServerResponse): boolean {
    const watching = url.searchParams.get('watch') === 'true';
    if (this.hostile === 'fresh-continue' && !watching) {
      // A full page and a token never seen before, every time: a list that grows as long as it is read.
      const page = Number(url.searchParams.get('continue')?.replace('page-', '') ?? 0) + 1;
      const items = Array.from({ length: 500 }, (_, index) => ({ metadata: { name: `filler-${page}-${index}`, namespace: 'default' } }));
      this.json(res, 200, { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '1', continue: `page-${page}` }, items });
      return true;
    }
    if (this.hostile === 'repeated-continue' && !watching) {
      this.json(res, 200, { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '1', continue: 'again' }, items: [] });
      return true;
    }
    if ((this.hostile === 'endless-list' && !watching) || (this.hostile === 'endless-event' && watching)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(watching ? '{"type":"ADDED","object":{"metadata":{"name":"' : '{"kind":"List","apiVersion":"v1","metadata":{},"items":[');
      const chunk = watching ? 'x'.repeat(64 * 1024) : `${JSON.stringify({ metadata: { name: 'filler', annotations: { a: 'y'.repeat(60 * 1024) } } })},`;
      // Writes while the client reads, up to 1 GiB: the client must stop long before.
      const pump = () => {
        while (!res.destroyed && this.hostileBytes < 1024 * 1024 * 1024) {
          this.hostileBytes += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
      return true;
    }
    return false;
  }

  private json(res: ServerResponse, status: number, body: Json): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }
}

export function nodes(count: number, capacity = 110): Json[] {
  return Array.from({ length: count }, (_, index) => ({ metadata: { name: `node-${index}` }, status: { allocatable: { pods: String(capacity) } } }));
}

export function podsOn(node: string, count: number, phase = 'Running'): Json[] {
  return Array.from({ length: count }, (_, index) => ({
    metadata: { name: `${node}-pod-${index}-${phase}`, namespace: 'default' },
    spec: { nodeName: node },
    status: { phase },
  }));
}
