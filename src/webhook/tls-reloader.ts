import type { Server } from 'node:https';
import type { Logger } from 'pino';
import type { WebhookMetrics } from './metrics.js';
import { loadTlsMaterial, secureContextOptions, type TlsFiles, type TlsMaterial } from './tls-files.js';

/**
 * Re-reads the certificate and key (cert-manager or a Secret update rotates them on disk) and
 * swaps them into the running server without dropping a request. A half-written pair is refused
 * while the old one keeps serving.
 */
export class TlsReloader {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly files: TlsFiles,
    private material: TlsMaterial,
    private readonly server: Server,
    private readonly metrics: WebhookMetrics,
    private readonly logger: Logger,
  ) {}

  /** Checks the files now; true when a new pair was loaded. */
  reload(): boolean {
    let next: TlsMaterial;
    try {
      next = loadTlsMaterial(this.files);
    } catch (error) {
      this.metrics.tlsReloads.inc({ result: 'error' });
      this.logger.error({ reason: (error as Error).message }, 'TLS files changed but cannot be used; keeping the current certificate');
      return false;
    }
    if (next.fingerprint === this.material.fingerprint) return false;
    this.server.setSecureContext(secureContextOptions(next));
    this.material = next;
    this.metrics.tlsReloads.inc({ result: 'reloaded' });
    this.logger.info({ certFile: this.files.certFile }, 'TLS certificate reloaded');
    return true;
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => this.reload(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
