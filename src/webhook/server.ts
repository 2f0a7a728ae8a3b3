import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import pino, { type Logger } from 'pino';
import type { WebhookConfig } from '../engine/config.js';
import type { Engine } from '../engine/engine.js';
import { ADMISSION_REVIEW_SCHEMA, admissionReview, type AdmissionReviewRequest } from './admission-review.js';
import { WebhookMetrics } from './metrics.js';
import { mutateRequest } from './mutate.js';
import type { NamespacePolicy } from './namespace-policy.js';
import { loadTlsMaterial, secureContextOptions, type TlsFiles, type TlsMaterial } from './tls-files.js';
import { validateRequest } from './validate.js';

/**
 * The largest AdmissionReview accepted. The API server takes request bodies up to 3 MiB
 * (apiserver MaxRequestBodyBytes) and etcd stores objects up to 1.5 MiB; an UPDATE review carries
 * the object and the old object, and JSON encoding adds a little: 8 MiB leaves room for both.
 */
export const BODY_LIMIT_BYTES = 8 * 1024 * 1024;

export interface WebhookServerOptions {
  engine: Engine;
  policy: NamespacePolicy;
  webhook: WebhookConfig;
  tls: TlsFiles;
  /** How often the certificate files are checked for rotation. */
  tlsReloadIntervalMs?: number;
  logger?: Logger;
  metrics?: WebhookMetrics;
}

export interface WebhookServer {
  app: FastifyInstance;
  metrics: WebhookMetrics;
  /** Stop accepting, finish in-flight reviews, close. */
  close(): Promise<void>;
  /** Checks the certificate files now (also done on an interval). */
  reloadTls(): boolean;
}

/**
 * Log fields that could carry object contents or credentials: never written. The code logs named
 * fields only; this is the safety net. (Wildcard paths would cost a traversal of every line.)
 */
const REDACTED_PATHS = ['object', 'oldObject', 'request.object', 'request.oldObject', 'body', 'req.headers.authorization', 'req.headers.cookie'];

/**
 * The webhook's logger. Without a destination it writes to stdout asynchronously in 4 KiB batches,
 * so a log line does not cost a write system call per review; `flushLogger` runs before exit.
 */
export function createLogger(destination?: NodeJS.WritableStream): Logger {
  const output = destination ?? pino.destination({ dest: 1, sync: false, minLength: 4096 });
  return pino({ level: process.env.LOG_LEVEL ?? 'info', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, output as never);
}

export function flushLogger(logger: Logger): void {
  try {
    logger.flush();
  } catch {
    // a destination that cannot flush has nothing buffered
  }
}

export async function createWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  let material: TlsMaterial = loadTlsMaterial(options.tls);
  const metrics = options.metrics ?? new WebhookMetrics();
  const logger = options.logger ?? createLogger();
  let ready = false;

  const serverOptions: FastifyServerOptions & { https: object } = {
    loggerInstance: logger,
    // One line per review is logged by the route itself, with the fields that matter.
    logController: new LogController({ disableRequestLogging: true }),
    // No child logger per request: the review's own line carries its uid, which is what correlates.
    childLoggerFactory: (parent) => parent,
    bodyLimit: BODY_LIMIT_BYTES,
    return503OnClosing: true,
    https: {
      ...secureContextOptions(material),
      minVersion: 'TLSv1.2',
      ...(options.tls.clientCaFile ? { requestCert: true, rejectUnauthorized: true } : {}),
    },
  };
  const app = Fastify(serverOptions) as unknown as FastifyInstance;
  // Only JSON is an AdmissionReview; without this, fastify would hand a text/plain body to the route.
  app.removeContentTypeParser(['text/plain']);

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string; validation?: unknown }, request, reply) => {
    // Bad bodies are the client's problem: one warning line, a JSON answer, and the next request is served.
    const status = error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 400 : (error.statusCode ?? 500);
    const message = error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 'Content-Type must be application/json' : error.message;
    if (status >= 500) request.log.error({ err: error, path: request.url }, 'admission request failed');
    else {
      request.log.warn({ path: request.url, status, code: error.code, reason: message }, 'bad admission request');
      metrics.badRequests.inc({ endpoint: request.routeOptions.url ?? request.url, status: String(status) });
    }
    void reply.status(status).send({ error: status >= 500 ? 'Internal Server Error' : 'Bad Request', statusCode: status, message });
  });

  for (const endpoint of ['validate', 'mutate'] as const) {
    app.post<{ Body: AdmissionReviewRequest }>(`/${endpoint}`, { schema: { body: ADMISSION_REVIEW_SCHEMA } }, async (request) => {
      const started = process.hrtime.bigint();
      const admission = request.body.request;
      let decision: string;
      let rules: string[];
      let response;
      if (endpoint === 'validate') {
        const outcome = validateRequest(admission, options.engine, options.policy);
        decision = outcome.decision;
        rules = [...new Set(outcome.findings.map((finding) => finding.rule))];
        for (const finding of outcome.findings) metrics.recordFinding(finding.rule, finding.severity);
        for (const rule of outcome.failedRules) {
          metrics.ruleFailures.inc({ rule });
          request.log.error({ rule, uid: admission.uid }, 'rule failed; allowed for this rule');
        }
        response = outcome.response;
      } else {
        const outcome = mutateRequest(admission, options.engine, options.policy, options.webhook);
        decision = outcome.decision;
        rules = outcome.applied;
        if (!admission.dryRun) for (const applied of outcome.applied) metrics.patches.inc({ rule: applied.split(':')[0]! });
        response = outcome.response;
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.recordReview(endpoint, decision, seconds);
      const object = admission.object as { metadata?: { name?: string; generateName?: string } } | undefined;
      request.log.info(
        {
          endpoint,
          uid: admission.uid,
          kind: admission.kind.kind,
          namespace: admission.namespace,
          name: admission.name || object?.metadata?.name || object?.metadata?.generateName,
          operation: admission.operation,
          dryRun: admission.dryRun === true,
          decision,
          rules,
          latencyMs: Math.round(seconds * 1e6) / 1e3,
        },
        'admission review',
      );
      return admissionReview(response);
    });
  }

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    // Ready means: TLS material loaded, engine and config built, not shutting down. Never the API server.
    if (!ready) return reply.status(503).send({ status: 'not ready' });
    return { status: 'ready' };
  });
  app.get('/metrics', async (_request, reply) => {
    void reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });

  const reloadTls = (): boolean => {
    let next: TlsMaterial;
    try {
      next = loadTlsMaterial(options.tls);
    } catch (error) {
      metrics.tlsReloads.inc({ result: 'error' });
      logger.error({ reason: (error as Error).message }, 'TLS files changed but cannot be used; keeping the current certificate');
      return false;
    }
    if (next.fingerprint === material.fingerprint) return false;
    (app.server as unknown as import('node:tls').Server).setSecureContext(secureContextOptions(next));
    material = next;
    metrics.tlsReloads.inc({ result: 'reloaded' });
    logger.info({ certFile: options.tls.certFile }, 'TLS certificate reloaded');
    return true;
  };
  const reloadTimer = setInterval(reloadTls, options.tlsReloadIntervalMs ?? 10_000);
  reloadTimer.unref();

  await app.ready();
  ready = true;
  return {
    app,
    metrics,
    reloadTls,
    async close() {
      ready = false;
      clearInterval(reloadTimer);
      await app.close();
    },
  };
}
