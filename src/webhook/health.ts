// What /healthz and /readyz answer: one definition for the HTTPS routes and the plain-HTTP health port.

export interface HealthAnswer {
  statusCode: 200 | 503;
  body: { status: 'ok' | 'ready' | 'not ready' };
}

export const HEALTH_PATHS = ['/healthz', '/readyz'] as const;
export type HealthPath = (typeof HEALTH_PATHS)[number];

/** Liveness is the process answering; readiness is TLS loaded, the session built, and not shutting down. */
export function healthAnswer(path: HealthPath, ready: boolean): HealthAnswer {
  if (path === '/healthz') return { statusCode: 200, body: { status: 'ok' } };
  return ready ? { statusCode: 200, body: { status: 'ready' } } : { statusCode: 503, body: { status: 'not ready' } };
}
