import { parseArgs } from 'node:util';
import type { Severity } from '../engine/rule.js';

export const FORMATS = ['text', 'json', 'sarif', 'github'] as const;
export type Format = (typeof FORMATS)[number];
export const FAIL_ON = ['error', 'warning', 'info', 'never'] as const;
export type FailOn = Severity | 'never';

export interface LintArguments {
  command: 'lint';
  paths: string[];
  format: Format;
  failOn: FailOn;
  config: string | undefined;
  podsPerNode: number | undefined;
  strict: boolean;
  showSuppressed: boolean;
  color: boolean | undefined;
  /** Apply fixes: write files, or print the fixed document for stdin. */
  fix: boolean;
  /** Print the fixes as a unified diff instead of writing. */
  fixDryRun: boolean;
  /** Fetch density once from this cluster (lint), or read the workloads from it (audit). */
  kubeconfig: string | undefined;
  context: string | undefined;
}

export interface AuditArguments extends Omit<LintArguments, 'command' | 'paths' | 'fix' | 'fixDryRun'> {
  command: 'audit';
  /** undefined: the context's namespace; '*': all namespaces. */
  namespace: string | undefined;
  allNamespaces: boolean;
}

export interface ServeArguments {
  command: 'serve';
  port: number;
  host: string;
  tlsCert: string;
  tlsKey: string;
  clientCa: string | undefined;
  config: string | undefined;
  /** Seconds to finish in-flight reviews after SIGTERM before exiting anyway. */
  shutdownTimeout: number;
  kubeconfig: string | undefined;
  context: string | undefined;
}

export type Arguments =
  | LintArguments
  | AuditArguments
  | ServeArguments
  | { command: 'rules' }
  | { command: 'explain'; rule: string }
  | { command: 'help' }
  | { command: 'version' };

/** A mistake on the command line: printed with the usage hint, exit code 2. */
export class UsageError extends Error {}

export const USAGE = `Usage: probe-lint [options] PATH...     lint files and directories (*.yaml, *.yml, *.json); "-" reads stdin
       probe-lint rules                   list the rules
       probe-lint explain RULE            print a rule's documentation
       probe-lint audit [--kubeconfig FILE] [--context NAME] [-n NAMESPACE | -A] [options]
                                          lint the workloads living in a cluster
       probe-lint serve --tls-cert FILE --tls-key FILE [--port 8443] [--config FILE] [--client-ca FILE]
                        [--kubeconfig FILE] [--context NAME]
                                          run the admission webhook (HTTPS); in a pod, reads the
                                          cluster with its service account

Options:
  -f, --format FORMAT      text (default), json, sarif or github
      --fail-on LEVEL      exit 1 on findings at or above: error, warning (default), info, never
  -c, --config FILE        configuration file (default: .probe-lint.yaml here or in a parent directory)
      --pods-per-node N    mean pods per node of the target cluster (for exec-probe-dense-cluster)
      --strict             disregard probe-lint.dev/ignore annotations; only the config may exempt
      --show-suppressed    also list suppressed findings and why
      --fix                apply the fixes rules offer, in place (comments and layout kept);
                           with "-", print the fixed document; the report then goes to stderr
      --fix-dry-run        print the fixes as a unified diff instead of writing (report to stderr)
      --color, --no-color  force colours on or off (default: on for a terminal)
      --kubeconfig FILE    read cluster density once from this cluster (lint), or the workloads (audit)
      --context NAME       the kubeconfig context to use
  -n, --namespace NS       audit: only this namespace (default: the context's namespace)
  -A, --all-namespaces     audit: every namespace
  -h, --help               show this help
  -v, --version            print the version

Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it, 2 usage, input or config error.
After --fix, the exit code reflects what is left unfixed.
`;

export function parseArguments(argv: readonly string[]): Arguments {
  if (argv[0] === 'serve') return parseServeArguments(argv.slice(1));
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        format: { type: 'string', short: 'f' },
        'fail-on': { type: 'string' },
        config: { type: 'string', short: 'c' },
        'pods-per-node': { type: 'string' },
        strict: { type: 'boolean' },
        'show-suppressed': { type: 'boolean' },
        fix: { type: 'boolean' },
        'fix-dry-run': { type: 'boolean' },
        color: { type: 'boolean' },
        'no-color': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        namespace: { type: 'string', short: 'n' },
        'all-namespaces': { type: 'boolean', short: 'A' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: 'help' };
  if (values.version) return { command: 'version' };

  const [first, ...rest] = positionals;
  if (first === 'rules' && rest.length === 0) return { command: 'rules' };
  if (first === 'explain') {
    if (rest.length !== 1) throw new UsageError('explain takes exactly one rule id, e.g. probe-lint explain timeout-not-below-period');
    return { command: 'explain', rule: rest[0]! };
  }
  const isAudit = first === 'audit';
  if (isAudit && rest.length > 0) throw new UsageError(`audit takes no paths (got ${rest.join(' ')}); use -n NAMESPACE or --all-namespaces`);
  if (!isAudit && positionals.length === 0) throw new UsageError('no input: give files or directories to lint, or "-" for stdin');
  if (!isAudit && (values.namespace !== undefined || values['all-namespaces'])) throw new UsageError('-n/--namespace and --all-namespaces belong to `probe-lint audit`');
  if (values.namespace !== undefined && values['all-namespaces']) throw new UsageError('-n/--namespace and --all-namespaces exclude each other');

  const format = values.format ?? 'text';
  if (!FORMATS.includes(format as Format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')} (got "${format}")`);
  const failOn = values['fail-on'] ?? 'warning';
  if (!FAIL_ON.includes(failOn as FailOn)) throw new UsageError(`--fail-on must be one of ${FAIL_ON.join(', ')} (got "${failOn}")`);
  let podsPerNode: number | undefined;
  if (values['pods-per-node'] !== undefined) {
    podsPerNode = Number(values['pods-per-node']);
    if (!Number.isFinite(podsPerNode) || podsPerNode <= 0) throw new UsageError(`--pods-per-node must be a positive number (got "${values['pods-per-node']}")`);
  }
  if (values.fix && values['fix-dry-run']) throw new UsageError('--fix and --fix-dry-run exclude each other');
  const common = {
    format: format as Format,
    failOn: failOn as FailOn,
    config: values.config,
    podsPerNode,
    strict: values.strict ?? false,
    showSuppressed: values['show-suppressed'] ?? false,
    color: values['no-color'] ? false : values.color,
    kubeconfig: values.kubeconfig,
    context: values.context,
  };
  if (isAudit) {
    if (values.fix || values['fix-dry-run']) throw new UsageError('audit cannot fix: it reads the cluster, it does not change it');
    return { command: 'audit', ...common, namespace: values.namespace, allNamespaces: values['all-namespaces'] ?? false };
  }
  return { command: 'lint', paths: positionals, ...common, fix: values.fix ?? false, fixDryRun: values['fix-dry-run'] ?? false };
}

function parseServeArguments(argv: readonly string[]): ServeArguments {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      allowPositionals: false,
      strict: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'client-ca': { type: 'string' },
        config: { type: 'string', short: 'c' },
        'shutdown-timeout': { type: 'string' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
      },
    }));
  } catch (error) {
    throw new UsageError(`serve: ${(error as Error).message}`);
  }
  if (values['tls-cert'] === undefined || values['tls-key'] === undefined) throw new UsageError('serve needs --tls-cert FILE and --tls-key FILE: the API server only calls webhooks over HTTPS');
  const port = Number(values.port ?? 8443);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number (got "${values.port}")`);
  const shutdownTimeout = Number(values['shutdown-timeout'] ?? 20);
  if (!Number.isFinite(shutdownTimeout) || shutdownTimeout <= 0) throw new UsageError(`--shutdown-timeout must be a positive number of seconds`);
  return {
    command: 'serve',
    port,
    host: values.host ?? '0.0.0.0',
    tlsCert: values['tls-cert'],
    tlsKey: values['tls-key'],
    clientCa: values['client-ca'],
    config: values.config,
    shutdownTimeout,
    kubeconfig: values.kubeconfig,
    context: values.context,
  };
}
