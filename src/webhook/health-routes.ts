// Liveness, readiness and metrics of the webhook itself. Readiness never depends on the API server.
import type { FastifyInstance } from 'fastify';
import type { Server } from 'node:https';
import { HEALTH_PATHS, healthAnswer } from './health.js';
import type { WebhookMetrics } from './metrics.js';

export function registerHealthRoutes(app: FastifyInstance<Server>, metrics: WebhookMetrics, isReady: () => boolean): void {
  for (const path of HEALTH_PATHS)
    app.get(path, (_request, reply) => {
      const answer = healthAnswer(path, isReady());
      return reply.status(answer.statusCode).send(answer.body);
    });
  app.get('/metrics', async (_request, reply) => {
    void reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
