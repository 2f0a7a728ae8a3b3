// The webhook as a fastify plugin: it receives the engine, the namespace policy and the metrics,
// and reaches into nothing else (no config files, no cluster).
import type { Server } from 'node:https';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebhookConfig } from '../engine/config.js';
import type { Engine } from '../engine/engine.js';
import type { AnyRule } from '../engine/rule.js';
import { singleLine } from '../report/finding-text.js';
import type { AdmissionLimits } from './admission-lint.js';
import { admissionReview, readAdmissionReview, type AdmissionRequest, type AdmissionResponse } from './admission-review.js';
import type { WebhookMetrics } from './metrics.js';
import { admissionFixRules, mutateRequest } from './mutate.js';
import type { NamespacePolicy } from './namespace-policy.js';
import { validateRequest } from './validate.js';

export interface WebhookPluginOptions {
  engine: Engine;
  rules: readonly AnyRule[];
  policy: NamespacePolicy;
  webhook: WebhookConfig;
  metrics: WebhookMetrics;
  limits: AdmissionLimits;
  /** Ready: TLS loaded, engine built, not shutting down. Never depends on the API server. */
  isReady: () => boolean;
}

type Endpoint = 'validate' | 'mutate';
type HttpsFastify = FastifyInstance<Server>;

/** What a review handler produced, for the response and the review's log line. */
interface ReviewResult {
  response: AdmissionResponse;
  decision: string;
  rules: string[];
}

export function webhookPlugin(app: HttpsFastify, options: WebhookPluginOptions, done: (error?: Error) => void): void {
  const { metrics } = options;
  const fixRules = admissionFixRules(options.rules, options.webhook);
  const settings = { limits: options.limits, annotationsInEnforce: options.webhook.annotationsInEnforce === true };

  /** A 4xx with a JSON body, one log line, and a metric labelled by known route only. */
  const badRequest = (request: FastifyRequest, reply: FastifyReply, status: number, message: string, endpoint: string): FastifyReply => {
    request.log.warn({ path: request.url.slice(0, 100), status, reason: message }, 'bad admission request');
    metrics.badRequests.inc({ endpoint, status: String(status) });
    return reply
      .status(status)
      .send({ error: status === 404 ? 'Not Found' : status === 413 ? 'Payload Too Large' : 'Bad Request', statusCode: status, message });
  };

  const handlers: Record<Endpoint, (admission: AdmissionRequest, request: FastifyRequest) => ReviewResult> = {
    validate: (admission, request) => {
      const outcome = validateRequest(admission, options.engine, options.policy, settings);
      for (const finding of outcome.findings) metrics.recordFinding(finding.rule, finding.severity);
      for (const finding of outcome.suppressedByAnnotation) metrics.suppressed.inc({ rule: finding.rule });
      for (const rule of outcome.failedRules) {
        metrics.ruleFailures.inc({ rule });
        request.log.error({ rule, uid: admission.uid }, 'rule failed; allowed for this rule');
      }
      if (outcome.unreadable !== undefined) {
        metrics.unreadable.inc({ endpoint: 'validate' });
        request.log.warn({ uid: admission.uid, reason: outcome.unreadable }, 'object not checked');
      }
      return { response: outcome.response, decision: outcome.decision, rules: [...new Set(outcome.findings.map((finding) => finding.rule))] };
    },
    mutate: (admission, request) => {
      const outcome = mutateRequest(admission, options.engine, options.policy, options.webhook, fixRules, options.limits);
      if (!admission.dryRun) for (const applied of outcome.applied) metrics.patches.inc({ rule: applied.split(':')[0]! });
      for (const conflict of outcome.conflicts) {
        metrics.patchConflicts.inc({ rule: conflict.rule });
        request.log.warn(
          { uid: admission.uid, rule: conflict.rule, container: conflict.container, path: conflict.path },
          'fix left out: it touches what an earlier fix in the patch touches',
        );
      }
      return { response: outcome.response, decision: outcome.decision, rules: outcome.applied };
    },
  };

  for (const endpoint of ['validate', 'mutate'] as const) {
    app.post(`/${endpoint}`, async (request, reply) => {
      const started = process.hrtime.bigint();
      const read = readAdmissionReview(request.body);
      if ('error' in read) return badRequest(request, reply, 400, read.error, endpoint);
      const admission = read.request;
      let result: ReviewResult;
      try {
        result = handlers[endpoint](admission, request);
      } catch (error) {
        // Never a 5xx for a review: the API server would apply failurePolicy to every object like this one.
        metrics.unreadable.inc({ endpoint });
        request.log.error({ uid: admission.uid, err: error }, 'review failed; allowed with a warning');
        result = {
          response: {
            uid: admission.uid,
            allowed: true,
            warnings: [singleLine('probe-lint could not check this object (internal error); it was allowed unchecked')],
          },
          decision: 'error',
          rules: [],
        };
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.recordReview(endpoint, result.decision, seconds);
      const object = admission.object as { metadata?: { name?: unknown; generateName?: unknown } } | undefined;
      const name = admission.name || object?.metadata?.name || object?.metadata?.generateName;
      request.log.info(
        {
          endpoint,
          uid: admission.uid,
          kind: admission.kind.kind.slice(0, 64),
          namespace: admission.namespace?.slice(0, 64),
          name: typeof name === 'string' ? name.slice(0, 253) : undefined,
          operation: admission.operation,
          dryRun: admission.dryRun === true,
          decision: result.decision,
          rules: result.rules.slice(0, 50),
          latencyMs: Math.round(seconds * 1e6) / 1e3,
        },
        'admission review',
      );
      return admissionReview(result.response);
    });
  }

  app.get('/healthz', (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', (_request, reply) => (options.isReady() ? reply.send({ status: 'ready' }) : reply.status(503).send({ status: 'not ready' })));
  app.get('/metrics', async (_request, reply) => {
    void reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });

  app.setNotFoundHandler((request, reply) => badRequest(request, reply, 404, `no route ${request.method} ${request.url.slice(0, 100)}`, 'other'));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const route = routeLabel(request);
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return badRequest(request, reply, 400, 'Content-Type must be application/json', route);
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return badRequest(request, reply, 413, error.message, route);
    const status = error.statusCode ?? 500;
    if (status < 500) return badRequest(request, reply, status, error.message, route);
    request.log.error({ err: error, route }, 'request failed');
    return reply.status(500).send({ error: 'Internal Server Error', statusCode: 500, message: 'internal error' });
  });
  done();
}

function routeLabel(request: FastifyRequest): string {
  const url = request.routeOptions.url;
  return url === '/validate' || url === '/mutate' ? url.slice(1) : 'other';
}
