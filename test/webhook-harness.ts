// The webhook server over real HTTPS on loopback, with certificates made for the test and its log captured.
import { Writable } from 'node:stream';
import { RULES } from '../rules/index.js';
import { unknownCluster } from '../src/engine/cluster-facts.js';
import type { ProbeLintConfig } from '../src/engine/config.js';
import { Engine } from '../src/engine/engine.js';
import { LintSession } from '../src/lint/index.js';
import type { AnyRule } from '../src/engine/rule.js';
import { NamespacePolicy, type NamespaceLabels } from '../src/webhook/namespace-policy.js';
import { createLogger } from '../src/webhook/logger.js';
import { createWebhookServer, type ConnectionLimits, type WebhookServer } from '../src/webhook/server.js';
import { makeTestPki, type TestPki } from './tls.js';
import { httpsRequest } from './webhook-client.js';

export class LogCapture extends Writable {
  lines: any[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) this.lines.push(JSON.parse(line));
    done();
  }
  text(): string {
    return this.lines.map((line) => JSON.stringify(line)).join('\n');
  }
}

class MapLabels implements NamespaceLabels {
  constructor(private readonly labels: Record<string, Record<string, string>>) {}
  labelsOf(namespace: string) {
    return this.labels[namespace];
  }
}

export interface Harness {
  server: WebhookServer;
  port: number;
  logs: LogCapture;
  /** The CA that signed the server's certificate. */
  caFile: string;
  post(path: string, body: unknown, contentType?: string): ReturnType<typeof httpsRequest>;
  get(path: string): ReturnType<typeof httpsRequest>;
}

let pki: { ca: TestPki; server: { cert: string; key: string } } | undefined;

function testPki() {
  if (pki === undefined) {
    const ca = makeTestPki();
    pki = { ca, server: ca.issue('webhook') };
  }
  return pki;
}

export async function startHarness(
  config: ProbeLintConfig = {},
  options: { labels?: Record<string, Record<string, string>>; rules?: readonly AnyRule[]; connectionLimits?: Partial<ConnectionLimits> } = {},
): Promise<Harness> {
  const { ca, server: serverCert } = testPki();
  const logs = new LogCapture();
  const engine = new Engine(options.rules ?? RULES, { config, cluster: unknownCluster() });
  const server = await createWebhookServer({
    rules: options.rules ?? RULES,
    session: new LintSession(engine),
    policy: new NamespacePolicy(config.webhook ?? {}, options.labels ? new MapLabels(options.labels) : undefined),
    webhook: config.webhook ?? {},
    tls: { certFile: serverCert.cert, keyFile: serverCert.key },
    logger: createLogger(logs),
    ...(options.connectionLimits ? { connectionLimits: options.connectionLimits } : {}),
  });
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (server.app.server.address() as { port: number }).port;
  return {
    server,
    port,
    logs,
    caFile: ca.caCert,
    post: (path, body, contentType) =>
      httpsRequest(port, path, {
        body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
        ...(contentType ? { contentType } : {}),
        ca: ca.caCert,
      }),
    get: (path) => httpsRequest(port, path, { ca: ca.caCert }),
  };
}

/** Runs `body` against a harness started for it, and closes the harness whatever happens. */
export async function withHarness<T>(
  config: ProbeLintConfig,
  body: (harness: Harness) => Promise<T>,
  options: Parameters<typeof startHarness>[1] = {},
): Promise<T> {
  const harness = await startHarness(config, options);
  try {
    return await body(harness);
  } finally {
    await harness.server.close();
  }
}
