// Liveness, readiness and metrics of the webhook itself. Readiness never depends on the API server.
import type { FastifyInstance } from 'fastify';
import type { Server } from 'node:https';
import type { WebhookMetrics } from './metrics.js';

export function registerHealthRoutes(app: FastifyInstance<Server>, metrics: WebhookMetrics, isReady: () => boolean): void {
  app.get('/healthz', (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', (_request, reply) => (isReady() ? reply.send({ status: 'ready' }) : reply.status(503).send({ status: 'not ready' })));
  app.get('/metrics', async (_request, reply) => {
    void reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
