// The webhook as a fastify plugin: it receives the lint session, the namespace policy and the metrics,
// and reaches into nothing else (no config files, no cluster). The review routes, the health
// routes and the answers to bad requests are modules of their own.
import type { Server } from 'node:https';
import type { FastifyInstance } from 'fastify';
import { badRequestResponder, registerErrorResponses } from './bad-request.js';
import { registerHealthRoutes } from './health-routes.js';
import { registerReviewRoutes, type ReviewDependencies } from './review-route.js';

export interface WebhookPluginOptions extends ReviewDependencies {
  /** Ready: TLS loaded, lint session built, not shutting down. Never depends on the API server. */
  isReady: () => boolean;
}

export function webhookPlugin(app: FastifyInstance<Server>, options: WebhookPluginOptions, done: (error?: Error) => void): void {
  const badRequest = badRequestResponder(options.metrics);
  registerReviewRoutes(app, options, badRequest);
  registerHealthRoutes(app, options.metrics, options.isReady);
  registerErrorResponses(app, badRequest);
  done();
}
