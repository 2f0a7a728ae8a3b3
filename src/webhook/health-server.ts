// /healthz and /readyz over plain HTTP on a port of their own (`serve --health-port`), for the
// kubelet's probes. Over HTTPS each probe is a new connection and a TLS handshake, which waits its
// turn behind every review queued on a replica at its CPU limit: on the real node, one replica under
// a 5,000-Pod storm failed its own 2 s readiness probes (and 4 s ones), left the Service, and the API
// server refused the Pods of the storm. With the probes on this port it failed none.
// It reads nothing but a request line and headers: no body, no route beyond the two paths, bounded
// connections and time, and the answers carry nothing a caller could not already see.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HEALTH_PATHS, healthAnswer, type HealthPath } from './health.js';

/** Bounds for a port anyone who reaches the pod can open: a probe needs one short connection. */
export const HEALTH_LIMITS = {
  maxConnections: 64,
  headersTimeoutMs: 2_000,
  requestTimeoutMs: 2_000,
  keepAliveTimeoutMs: 1_000,
  checkIntervalMs: 1_000,
  maxHeaderSize: 8 * 1024,
};

export interface HealthServer {
  /** Listens; resolves with the port bound (which differs from `port` 0). */
  listen(port: number, host: string): Promise<number>;
  close(): Promise<void>;
}

export function createHealthServer(isReady: () => boolean): HealthServer {
  const server: Server = createServer(
    {
      headersTimeout: HEALTH_LIMITS.headersTimeoutMs,
      requestTimeout: HEALTH_LIMITS.requestTimeoutMs,
      keepAliveTimeout: HEALTH_LIMITS.keepAliveTimeoutMs,
      connectionsCheckingInterval: HEALTH_LIMITS.checkIntervalMs,
      maxHeaderSize: HEALTH_LIMITS.maxHeaderSize,
    },
    (request, response) => {
      // A body is never read: answering closes the connection after it, so nothing waits on it.
      const path = (request.url ?? '').split('?', 1)[0];
      const known = HEALTH_PATHS.find((candidate): candidate is HealthPath => candidate === path);
      if (known === undefined) return send(response, 404, { error: 'Not Found' });
      if (request.method !== 'GET' && request.method !== 'HEAD') return send(response, 405, { error: 'Method Not Allowed' }, { allow: 'GET, HEAD' });
      const answer = healthAnswer(known, isReady());
      return send(response, answer.statusCode, answer.body);
    },
  );
  server.maxConnections = HEALTH_LIMITS.maxConnections;
  return {
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve((server.address() as AddressInfo).port);
        });
      }),
    close: () =>
      new Promise((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(response: ServerResponse, statusCode: number, body: object, headers: Record<string, string> = {}): void {
  response.writeHead(statusCode, { 'content-type': 'application/json; charset=utf-8', connection: 'close', ...headers }).end(JSON.stringify(body));
}
