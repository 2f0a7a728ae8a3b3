// POST /validate and /mutate: read the AdmissionReview, run its handler, answer — allowed with a
// warning if the handler throws, never a 5xx — and log one line with what matters.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Server } from 'node:https';
import type { WebhookConfig } from '../engine/config.js';
import type { LintSession } from '../lint/index.js';
import type { AnyRule } from '../engine/rule.js';
import { singleLine } from '../report/finding-text.js';
import type { AdmissionLimits } from '../lint/index.js';
import { admissionReview, readAdmissionReview, type AdmissionRequest, type AdmissionResponse } from './admission-review.js';
import type { BadRequest } from './bad-request.js';
import type { WebhookMetrics } from './metrics.js';
import { admissionFixRules, mutateRequest } from './mutate.js';
import type { NamespacePolicy } from './namespace-policy.js';
import { validateRequest } from './validate.js';

export type Endpoint = 'validate' | 'mutate';

export interface ReviewDependencies {
  session: LintSession;
  rules: readonly AnyRule[];
  policy: NamespacePolicy;
  webhook: WebhookConfig;
  metrics: WebhookMetrics;
  limits: AdmissionLimits;
}

/** What a review handler produced, for the response and the review's log line. */
interface ReviewResult {
  response: AdmissionResponse;
  decision: string;
  rules: string[];
}

type ReviewHandler = (admission: AdmissionRequest, request: FastifyRequest) => ReviewResult;

/** The validating and mutating handlers, with the metrics and log lines each records. */
function reviewHandlers(options: ReviewDependencies): Record<Endpoint, ReviewHandler> {
  const { metrics } = options;
  const fixRules = admissionFixRules(options.rules, options.webhook);
  const settings = { limits: options.limits, annotationsInEnforce: options.webhook.annotationsInEnforce === true };
  return {
    validate: (admission, request) => {
      const outcome = validateRequest(admission, options.session, options.policy, settings);
      for (const finding of outcome.findings) metrics.recordFinding(finding.rule, finding.severity);
      for (const finding of outcome.suppressedByAnnotation) metrics.suppressed.inc({ rule: finding.rule });
      for (const rule of outcome.failedRules) {
        metrics.ruleFailures.inc({ rule });
        request.log.error({ rule, uid: admission.uid }, 'rule failed; allowed for this rule');
      }
      if (outcome.stopped === true) {
        metrics.stoppedReviews.inc({ endpoint: 'validate' });
        request.log.warn({ uid: admission.uid }, 'review stopped at its work budget; answered with the findings found before it');
      }
      if (outcome.unreadable !== undefined) {
        metrics.unreadable.inc({ endpoint: 'validate' });
        request.log.warn({ uid: admission.uid, reason: outcome.unreadable }, 'object not checked');
      }
      return { response: outcome.response, decision: outcome.decision, rules: [...new Set(outcome.findings.map((finding) => finding.rule))] };
    },
    mutate: (admission, request) => {
      const outcome = mutateRequest(admission, options.session, options.policy, options.webhook, fixRules, options.limits);
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
}

export function registerReviewRoutes(app: FastifyInstance<Server>, options: ReviewDependencies, badRequest: BadRequest): void {
  const handlers = reviewHandlers(options);
  const { metrics } = options;
  for (const endpoint of ['validate', 'mutate'] as const) {
    // Not async: a promise per review and the turn fastify waits for it cost throughput, and nothing here waits.
    app.post(`/${endpoint}`, (request, reply) => {
      const started = process.hrtime.bigint();
      const read = readAdmissionReview(request.body);
      if ('error' in read) return badRequest(request, reply, 400, read.error, endpoint);
      const admission = read.request;
      const result = safely(handlers[endpoint], admission, request, () => metrics.unreadable.inc({ endpoint }));
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.recordReview(endpoint, result.decision, seconds);
      logReview(request, endpoint, admission, result, seconds);
      return reply.send(admissionReview(result.response));
    });
  }
}

/** Never a 5xx for a review: the API server would apply failurePolicy to every object like this one. */
function safely(handler: ReviewHandler, admission: AdmissionRequest, request: FastifyRequest, counted: () => void): ReviewResult {
  try {
    return handler(admission, request);
  } catch (error) {
    counted();
    request.log.error({ uid: admission.uid, err: error }, 'review failed; allowed with a warning');
    return {
      response: {
        uid: admission.uid,
        allowed: true,
        warnings: [singleLine('probe-lint could not check this object (internal error); it was allowed unchecked')],
      },
      decision: 'error',
      rules: [],
    };
  }
}

/** One line per review: fields, not sentences, and nothing from the object beyond its uid, kind and name (bounded). */
function logReview(request: FastifyRequest, endpoint: Endpoint, admission: AdmissionRequest, result: ReviewResult, seconds: number): void {
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
}
