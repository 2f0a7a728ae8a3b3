import { RULES } from '../../rules/index.js';
import type { ClusterAccess } from '../cluster/cluster-access.js';
import { clusterFactsFrom } from '../engine/config.js';
import { LintSession } from '../lint/index.js';
import { webhookRules } from '../policies/coverage.js';
import { createLogger, flushLogger } from '../webhook/logger.js';
import { WebhookMetrics } from '../webhook/metrics.js';
import { NamespacePolicy } from '../webhook/namespace-policy.js';
import { createWebhookServer } from '../webhook/server.js';
import type { ServeArguments } from './arguments.js';
import { loadConfigOrReport, type CommandIo } from './context.js';
import { defaultHost } from './listen-address.js';

/** `probe-lint serve`: runs until SIGTERM or SIGINT; resolves with the exit code. */
export async function runServe(args: ServeArguments, io: CommandIo): Promise<number> {
  const config = await loadConfigOrReport(args.config, io, 'probe-lint serve: refusing to start');
  if (config === undefined) return 2;
  const metrics = new WebhookMetrics();
  const logger = createLogger(undefined, metrics.countDroppedLogLine);
  // The cluster is read in the background (density, namespace labels) when a kubeconfig is given
  // or when running in a pod; admission only ever reads what was cached.
  let cluster: ClusterAccess | undefined;
  if (args.kubeconfig !== undefined || io.env.KUBERNETES_SERVICE_HOST) {
    try {
      // The Kubernetes client (about 70 MB resident) loads only when there is a cluster to read.
      const { createClusterAccess } = await import('../cluster/cluster-access.js');
      cluster = createClusterAccess({ file: args.kubeconfig, context: args.context }, config, metrics.registry, logger);
    } catch (error) {
      io.stderr(`probe-lint serve: cannot start: ${(error as Error).message}\n`);
      return 2;
    }
  }
  const rules = webhookRules(RULES, config);
  const session = new LintSession({ rules, config, cluster: cluster?.refresher ?? clusterFactsFrom(config, undefined), strict: args.strict });
  const policy = new NamespacePolicy(config.webhook ?? {}, cluster?.namespaces);
  const host = args.host ?? defaultHost();
  let server;
  let healthPort: number | undefined;
  try {
    server = await createWebhookServer({
      session,
      rules,
      policy,
      webhook: config.webhook ?? {},
      tls: { certFile: args.tlsCert, keyFile: args.tlsKey, ...(args.clientCa ? { clientCaFile: args.clientCa } : {}) },
      logger,
      metrics,
      plainHealth: args.healthPort !== undefined,
    });
    await server.app.listen({ port: args.port, host });
    healthPort = await server.health?.listen(args.healthPort!, host);
  } catch (error) {
    io.stderr(`probe-lint serve: cannot start: ${(error as Error).message}\n`);
    return 2;
  }
  if (nodeMajor() < 22)
    logger.warn(
      { node: process.version },
      'Node.js before 22 can drop HTTP/1.1 requests pipelined on one connection (its parser errors while paused); run the webhook on Node 22 or later',
    );
  cluster?.refresher.start();
  cluster?.namespaces.start();
  // The port bound, which differs from --port 0.
  const address = server.app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : args.port;
  logger.info(
    { host, port, healthPort, mode: config.webhook?.mode ?? 'warn', cluster: cluster !== undefined, strict: args.strict },
    'probe-lint webhook listening',
  );
  flushLogger(logger);

  return new Promise<number>((resolve) => {
    const shutdown = (signal: string) => {
      logger.info({ signal, delaySeconds: args.shutdownDelay }, 'shutting down: serving on while the endpoint is removed, then finishing in-flight reviews');
      cluster?.stop();
      server.drain();
      const deadline = setTimeout(
        () => {
          logger.warn({ timeoutSeconds: args.shutdownTimeout }, 'in-flight reviews did not finish in time; exiting');
          flushLogger(logger);
          resolve(1);
        },
        (args.shutdownDelay + args.shutdownTimeout) * 1000,
      );
      deadline.unref();
      // Keep answering during the delay: the Service may still send reviews until its endpoint is gone.
      setTimeout(() => {
        server.close().then(
          () => {
            clearTimeout(deadline);
            logger.info('stopped');
            flushLogger(logger);
            resolve(0);
          },
          (error: unknown) => {
            logger.error({ err: error }, 'error while closing');
            flushLogger(logger);
            resolve(1);
          },
        );
      }, args.shutdownDelay * 1000);
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
}

function nodeMajor(): number {
  return Number(process.versions.node.split('.')[0]);
}
