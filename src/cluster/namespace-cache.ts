// Namespace labels (for each namespace's mode and injection setting), from a list and a watch:
// only names and labels are kept. A watch that ends is resumed from the last resourceVersion; a
// 410 Gone (resourceVersion too old) starts over with a fresh list. Every list and watch start
// goes through the guard.
import type { Namespace } from 'kubernetes-types/core/v1.js';
import type { Logger } from 'pino';
import { CallNotAllowed, type CallGuard, type Clock } from './call-guard.js';
import type { KubeClient } from './kube-client.js';

/** Where namespace labels come from: the cluster cache when there is one. Never blocks. */
export interface NamespaceLabels {
  labelsOf(namespace: string): Readonly<Record<string, string>> | undefined;
}

export class NamespaceCache implements NamespaceLabels {
  private labels = new Map<string, Readonly<Record<string, string>>>();
  private resourceVersion: string | undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private watchAbort: AbortController | undefined;
  synced = false;

  constructor(
    private readonly client: KubeClient,
    private readonly guard: CallGuard,
    private readonly clock: Clock,
    private readonly logger: Logger | undefined,
  ) {}

  labelsOf(namespace: string): Readonly<Record<string, string>> | undefined {
    return this.labels.get(namespace);
  }

  get size(): number {
    return this.labels.size;
  }

  start(): void {
    void this.relist();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.watchAbort?.abort();
  }

  /** A fresh list, replacing what is known, then a watch from its resourceVersion. */
  async relist(): Promise<void> {
    if (this.stopped) return;
    try {
      const next = new Map<string, Readonly<Record<string, string>>>();
      this.resourceVersion = await this.guard.run('namespaces', (signal, answered) =>
        this.client.listPaged<Namespace>(
          '/api/v1/namespaces',
          {},
          signal,
          (items) => {
            for (const item of items) if (item.metadata?.name) next.set(item.metadata.name, { ...(item.metadata.labels ?? {}) });
          },
          answered,
        ),
      );
      this.labels = next;
      this.synced = true;
    } catch (error) {
      this.retryLater(error, () => this.relist());
      return;
    }
    await this.watch();
  }

  private async watch(): Promise<void> {
    if (this.stopped) return;
    let gone = false;
    // A watch event carries a Namespace, or (type ERROR) a Status.
    const onEvent = (type: string, object: Namespace & { code?: number }) => {
      if (type === 'ERROR') {
        if (object?.code === 410) gone = true;
        return;
      }
      const metadata = object?.metadata;
      if (metadata?.resourceVersion) this.resourceVersion = metadata.resourceVersion;
      if (type === 'BOOKMARK' || metadata?.name === undefined) return;
      if (type === 'DELETED') this.labels.delete(metadata.name);
      else this.labels.set(metadata.name, { ...(metadata.labels ?? {}) });
    };
    // client-node's Watch reports a failed start (refused, 4xx/5xx) through `done`, not by
    // rejecting; the guard must see it as a failed call.
    let started = false;
    let startError: unknown;
    const done = (error: unknown) => {
      if (this.stopped) return;
      if (!started) {
        startError = error ?? new Error('the watch closed before it started');
        return;
      }
      if (gone || statusCodeOf(error) === 410) {
        this.logger?.info({ resourceVersion: this.resourceVersion }, 'namespace watch expired (410 Gone); listing again');
        void this.relist();
      } else if (error) this.retryLater(error, () => this.watch());
      else void this.watch(); // the server closed the stream normally: resume
    };
    try {
      this.watchAbort = await this.guard.run('namespaces-watch', async (signal) => {
        const controller = await this.client.watch(
          '/api/v1/namespaces',
          { resourceVersion: this.resourceVersion, allowWatchBookmarks: true },
          onEvent,
          done,
          signal,
        );
        if (startError !== undefined) throw startError instanceof Error ? startError : new Error(`the watch did not start: ${JSON.stringify(startError)}`);
        started = true;
        return controller;
      });
    } catch (error) {
      if (statusCodeOf(error) === 410) void this.relist();
      else this.retryLater(error, () => this.watch());
    }
  }

  private retryLater(error: unknown, again: () => Promise<void>): void {
    if (this.stopped) return;
    if (!(error instanceof CallNotAllowed)) this.logger?.debug({ reason: (error as Error)?.message }, 'namespace list/watch failed');
    const delay = Math.max(10, this.guard.retryAt - this.clock.now());
    this.timer = setTimeout(() => void again(), delay);
    this.timer.unref();
  }
}

/** HTTP status of a failed call: ours (ApiStatusError) and client-node's Watch both set statusCode. */
function statusCodeOf(error: unknown): number | undefined {
  return error !== null && typeof error === 'object' ? (error as { statusCode?: number }).statusCode : undefined;
}
