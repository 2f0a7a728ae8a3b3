// The webhook's answers to what is not a review it can read: a 4xx with a JSON body, one log line,
// and a metric labelled by known route only (a request never chooses a label).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Server } from 'node:https';
import type { WebhookMetrics } from './metrics.js';

export type BadRequest = (request: FastifyRequest, reply: FastifyReply, status: number, message: string, endpoint: string) => FastifyReply;

export function badRequestResponder(metrics: WebhookMetrics): BadRequest {
  return (request, reply, status, message, endpoint) => {
    request.log.warn({ path: request.url.slice(0, 100), status, reason: message }, 'bad admission request');
    metrics.badRequests.inc({ endpoint, status: String(status) });
    return reply
      .status(status)
      .send({ error: status === 404 ? 'Not Found' : status === 413 ? 'Payload Too Large' : 'Bad Request', statusCode: status, message });
  };
}

/** Unknown URLs, bodies that are not JSON or too large, and anything that throws: answered, never a crash. */
export function registerErrorResponses(app: FastifyInstance<Server>, badRequest: BadRequest): void {
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
}

function routeLabel(request: FastifyRequest): string {
  const url = request.routeOptions.url;
  return url === '/validate' || url === '/mutate' ? url.slice(1) : 'other';
}
