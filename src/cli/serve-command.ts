import { RULES } from '../../rules/index.js';
import { clusterFactsFrom, ConfigError, type ProbeLintConfig } from '../engine/config.js';
import { Engine } from '../engine/engine.js';
import { createClusterAccess, type ClusterAccess } from '../cluster/cluster-access.js';
import { WebhookMetrics } from '../webhook/metrics.js';
import { NamespacePolicy } from '../webhook/namespace-policy.js';
import { createLogger, createWebhookServer, flushLogger } from '../webhook/server.js';
import type { ServeArguments } from './arguments.js';
import { resolveConfig, type CommandIo } from './lint-command.js';

/** `probe-lint serve`: runs until SIGTERM or SIGINT; resolves with the exit code. */
export async function runServe(args: ServeArguments, io: CommandIo): Promise<number> {
  let config: ProbeLintConfig;
  try {
    config = resolveConfig(args.config, process.cwd());
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`probe-lint serve: refusing to start, bad configuration\n${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const logger = createLogger();
  const metrics = new WebhookMetrics();
  // The cluster is read in the background (density, namespace labels) when a kubeconfig is given
  // or when running in a pod; admission only ever reads what was cached.
  let cluster: ClusterAccess | undefined;
  if (args.kubeconfig !== undefined || process.env.KUBERNETES_SERVICE_HOST) {
    try {
      cluster = createClusterAccess({ file: args.kubeconfig, context: args.context }, config, metrics.registry, logger);
    } catch (error) {
      io.stderr(`probe-lint serve: cannot start: bad kubeconfig: ${(error as Error).message}\n`);
      return 2;
    }
  }
  const engine = new Engine(RULES, { config, cluster: cluster?.refresher ?? clusterFactsFrom(config, undefined) });
  const policy = new NamespacePolicy(config.webhook ?? {}, cluster?.namespaces);
  let server;
  try {
    server = await createWebhookServer({
      engine,
      policy,
      webhook: config.webhook ?? {},
      tls: { certFile: args.tlsCert, keyFile: args.tlsKey, ...(args.clientCa ? { clientCaFile: args.clientCa } : {}) },
      logger,
      metrics,
    });
    await server.app.listen({ port: args.port, host: args.host });
  } catch (error) {
    io.stderr(`probe-lint serve: cannot start: ${(error as Error).message}\n`);
    return 2;
  }
  cluster?.refresher.start();
  cluster?.namespaces.start();
  logger.info({ port: args.port, mode: config.webhook?.mode ?? 'warn', cluster: cluster !== undefined }, 'probe-lint webhook listening');
  flushLogger(logger);

  return new Promise<number>((resolve) => {
    const shutdown = (signal: string) => {
      logger.info({ signal }, 'shutting down: finishing in-flight reviews');
      cluster?.stop();
      const deadline = setTimeout(() => {
        logger.warn({ timeoutSeconds: args.shutdownTimeout }, 'in-flight reviews did not finish in time; exiting');
        flushLogger(logger);
        resolve(1);
      }, args.shutdownTimeout * 1000);
      deadline.unref();
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
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
}
