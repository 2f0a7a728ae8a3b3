// The webhook server: HTTPS with fastify, the webhook plugin, the TLS reloader, and shutdown.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { WebhookConfig } from '../engine/config.js';
import type { LintSession } from '../lint/index.js';
import type { AnyRule } from '../engine/rule.js';
import { DEFAULT_LIMITS, type AdmissionLimits } from '../lint/index.js';
import { createLogger } from './logger.js';
import { WebhookMetrics } from './metrics.js';
import type { NamespacePolicy } from './namespace-policy.js';
import { webhookPlugin } from './plugin.js';
import { createHealthServer, type HealthServer } from './health-server.js';
import { loadTlsMaterial, secureContextOptions, type TlsFiles } from './tls-files.js';
import { TlsReloader } from './tls-reloader.js';

/**
 * The largest AdmissionReview accepted. The API server takes request bodies up to 3 MiB
 * (apiserver MaxRequestBodyBytes) and etcd stores objects up to 1.5 MiB; an UPDATE review carries
 * the object and the old object, and JSON encoding adds a little: 8 MiB leaves room for both.
 */
export const BODY_LIMIT_BYTES = 8 * 1024 * 1024;

/**
 * Connection limits, well below the API server's webhook timeout (1–30 s, 10 by default): a
 * client that never finishes its TLS handshake, its headers or its body is cut off, so idle or
 * trickling connections cannot pile up and exhaust descriptors.
 */
export const CONNECTION_LIMITS = {
  handshakeTimeoutMs: 5_000,
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
  /** An idle keep-alive connection is closed after this (the API server reconnects when it needs to). */
  keepAliveTimeoutMs: 30_000,
  maxConnections: 10_000,
  /** How often Node checks the header and request timeouts (its default, 30 s, would let a trickle live 40 s). */
  checkIntervalMs: 1_000,
};

export type ConnectionLimits = typeof CONNECTION_LIMITS;

export interface WebhookServerOptions {
  session: LintSession;
  rules: readonly AnyRule[];
  policy: NamespacePolicy;
  webhook: WebhookConfig;
  tls: TlsFiles;
  /** How often the certificate files are checked for rotation. */
  tlsReloadIntervalMs?: number;
  logger?: Logger;
  metrics?: WebhookMetrics;
  /** Tighter limits (tests); the defaults suit the API server. */
  connectionLimits?: Partial<ConnectionLimits>;
  /** Also answer /healthz and /readyz over plain HTTP (`health`), for the kubelet's probes. */
  plainHealth?: boolean;
}

export interface WebhookServer {
  app: FastifyInstance<Server, IncomingMessage, ServerResponse, Logger>;
  metrics: WebhookMetrics;
  /**
   * Start shutting down while still serving: /readyz fails and every response carries
   * `Connection: close`, so keep-alive clients (the API server) reconnect to another replica.
   */
  drain(): void;
  /** Drain, stop accepting connections, answer every request already received, then close. */
  close(): Promise<void>;
  /** Checks the certificate files now (also done on an interval). */
  reloadTls(): boolean;
  /** /healthz and /readyz over plain HTTP, when asked for (listened on by the caller, closed by close()). */
  health: HealthServer | undefined;
}

export async function createWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const material = loadTlsMaterial(options.tls);
  const metrics = options.metrics ?? new WebhookMetrics();
  const logger = options.logger ?? createLogger(undefined, metrics.countDroppedLogLine);
  let ready = false;
  let closing = false;
  const connection = { ...CONNECTION_LIMITS, ...options.connectionLimits };

  const app = Fastify({
    loggerInstance: logger,
    // One line per review is logged by the route itself, with the fields that matter.
    logController: new LogController({ disableRequestLogging: true }),
    // No child logger per request: the review's own line carries its uid, which is what correlates.
    childLoggerFactory: (parent) => parent,
    bodyLimit: BODY_LIMIT_BYTES,
    // A "__proto__" key in an object is dropped rather than answered with 400: every review gets an answer.
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    // Requests already on an open connection are answered during shutdown, not refused with 503.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    connectionTimeout: connection.keepAliveTimeoutMs,
    keepAliveTimeout: connection.keepAliveTimeoutMs,
    requestTimeout: connection.requestTimeoutMs,
    https: {
      ...secureContextOptions(material),
      minVersion: 'TLSv1.2',
      handshakeTimeout: connection.handshakeTimeoutMs,
      // An http.Server option that https.createServer passes on.
      connectionsCheckingInterval: connection.checkIntervalMs,
      ...(options.tls.clientCaFile ? { requestCert: true, rejectUnauthorized: true } : {}),
    },
  });
  app.server.headersTimeout = connection.headersTimeoutMs;
  app.server.maxConnections = connection.maxConnections;
  // Only JSON is an AdmissionReview; without this, fastify would hand a text/plain body to the route.
  app.removeContentTypeParser(['text/plain']);

  const limits: AdmissionLimits = {
    ...DEFAULT_LIMITS,
    ...(options.webhook.maxContainersPerReview !== undefined ? { maxContainers: options.webhook.maxContainersPerReview } : {}),
    ...(options.webhook.maxWorkPerReview !== undefined ? { maxWork: options.webhook.maxWorkPerReview } : {}),
  };
  await app.register(webhookPlugin, {
    session: options.session,
    rules: options.rules,
    policy: options.policy,
    webhook: options.webhook,
    metrics,
    limits,
    isReady: () => ready && !closing,
  });

  const reloader = new TlsReloader(options.tls, material, app.server, metrics, logger);
  reloader.start(options.tlsReloadIntervalMs ?? 10_000);

  await app.ready();
  ready = true;
  /**
   * From now on every response says `Connection: close`. Told to the server once, not checked in a
   * hook on every response (an async hook per review cost throughput): a request that arrives from
   * now on gets the header before its handler runs, as every answer goes out after the request's
   * body is read.
   */
  const startDraining = () => {
    if (closing) return;
    closing = true;
    app.server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => response.setHeader('connection', 'close'));
  };
  const health = options.plainHealth === true ? createHealthServer(() => ready && !closing) : undefined;
  return {
    app,
    metrics,
    health,
    reloadTls: () => reloader.reload(),
    drain() {
      startDraining();
    },
    async close() {
      startDraining();
      reloader.stop();
      await Promise.all([app.close(), health?.close()]);
    },
  };
}
