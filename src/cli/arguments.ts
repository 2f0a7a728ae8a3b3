// Typed arguments of each command, read from the parsed command line.
import { parseWindow } from '../cluster/runtime-evidence.js';
import { prometheusUrl } from '../cluster/prometheus-url.js';
import { parseScenario, ScenarioError, type ScenarioPart } from '../model/fleet-scenario.js';
import type { FixKind, Severity } from '../engine/rule.js';
import { parseCommandLine, UsageError, type CommandName, type ParsedCommandLine } from './options.js';

import { REPORT_FORMATS, TIMELINE_FORMATS, type Format, type TimelineFormat } from '../report/format-names.js';
import type { RenderOptions } from '../source/read-inputs.js';

export type { Format } from '../report/formats.js';
export const RULES_FORMATS = ['text', 'json', 'markdown'] as const;
export type RulesFormat = (typeof RULES_FORMATS)[number];
export const FAIL_ON = ['error', 'warning', 'info', 'never'] as const;
export type FailOn = Severity | 'never';
const SEVERITIES = ['error', 'warning', 'info'] as const;

/** What lint and audit share. */
export interface ReportArguments {
  format: Format;
  /** --no-progress. */
  noProgress: boolean;
  /** --report FORMAT=FILE: more reports of the same run, each written to its file. */
  reports: { format: Format; file: string }[];
  failOn: FailOn;
  minSeverity: Severity;
  config: string | undefined;
  enable: string[];
  disable: string[];
  podsPerNode: number | undefined;
  strict: boolean;
  showSuppressed: boolean;
  color: boolean | undefined;
}

export interface LintArguments extends ReportArguments {
  command: 'lint';
  paths: string[];
  /** Apply fixes: write files, or print the fixed input for stdin. */
  fix: boolean;
  /** Print the fixes as a unified diff instead of writing. */
  fixDryRun: boolean;
  fixTypes: FixKind[];
  /** undefined: only when every input is stdin. */
  failIfNoObjects: boolean | undefined;
  render: RenderOptions;
  /** --exclude: globs relative to the working directory. */
  exclude: string[];
  /** --root: the tree inputs may read, instead of each input's own. */
  root: string | undefined;
  /** --only-manifests: files named that are not manifests are passed over, as in a directory walk. */
  onlyManifests: boolean;
  /** --baseline FILE: the findings it holds are old. */
  baseline: string | undefined;
  /** --write-baseline: record today's findings as the baseline. */
  writeBaseline: boolean;
  /** --prune-baseline: drop the baseline's fixed entries. */
  pruneBaseline: boolean;
  /** --changed-since REF: only the findings in files changed since REF. */
  changedSince: string | undefined;
}

export interface SimulateArguments extends Omit<TimelineArguments, 'command' | 'container' | 'format'> {
  command: 'simulate';
  scenario: ScenarioPart[];
  format: 'text' | 'json' | 'svg';
  /** --fail-above FACTOR: exit 1 past this amplification. */
  failAbove: number | undefined;
}

export interface TimelineArguments {
  command: 'timeline';
  /** --no-progress. */
  noProgress: boolean;
  paths: string[];
  container: string | undefined;
  format: TimelineFormat;
  render: RenderOptions;
  config: string | undefined;
  /** --exclude: globs relative to the working directory. */
  exclude: string[];
  /** --root: the tree inputs may read, instead of each input's own. */
  root: string | undefined;
  /** --only-manifests: files named that are not manifests are passed over, as in a directory walk. */
  onlyManifests: boolean;
}

export interface AuditArguments extends ReportArguments {
  command: 'audit';
  /** undefined: the context's namespace. */
  namespace: string | undefined;
  allNamespaces: boolean;
  /** The runtime evidence window (--since); undefined with --no-evidence. */
  since: { text: string; ms: number } | undefined;
  /** Write the reports of this kind into the cluster (--apply-reports). */
  applyReports: 'openreports' | 'policyreport' | undefined;
  /** Where probe metrics are read (--probe-metrics), with the files of a Prometheus client. */
  probeMetrics:
    | { kind: 'kubelet'; window: { text: string; ms: number } }
    | { kind: 'prometheus'; url: URL; tokenFile: string | undefined; caFile: string | undefined }
    | undefined;
  kubeconfig: string | undefined;
  context: string | undefined;
}

export interface ServeArguments {
  command: 'serve';
  port: number;
  /** Plain-HTTP /healthz and /readyz; undefined: none. */
  healthPort: number | undefined;
  /** undefined: "::" where IPv6 is available, else 0.0.0.0. */
  host: string | undefined;
  tlsCert: string;
  tlsKey: string;
  clientCa: string | undefined;
  config: string | undefined;
  strict: boolean;
  /** Seconds to finish in-flight reviews after SIGTERM before exiting anyway. */
  shutdownTimeout: number;
  /** Seconds to keep serving after SIGTERM, while the endpoint is being removed. */
  shutdownDelay: number;
  kubeconfig: string | undefined;
  context: string | undefined;
}

export interface LspArguments {
  command: 'lsp';
  config: string | undefined;
  render: RenderOptions;
}

export const POLICY_FORMATS = ['yaml', 'json'] as const;

export interface PoliciesArguments {
  command: 'policies';
  config: string | undefined;
  namespace: string;
  excludeNamespaces: string[];
  format: (typeof POLICY_FORMATS)[number];
}

export type Arguments =
  | LintArguments
  | PoliciesArguments
  | AuditArguments
  | ServeArguments
  | { command: 'rules'; format: RulesFormat; color: boolean | undefined }
  | { command: 'explain'; rule: string }
  | TimelineArguments
  | SimulateArguments
  | LspArguments
  | { command: 'help'; helpFor?: CommandName }
  | { command: 'version' };

export interface ParsedArguments {
  args: Arguments;
  debug: boolean;
}

/** `exists`: whether a path names a file or directory (relative to the working directory): such an argument is always an operand. */
export function parseArguments(argv: readonly string[], exists?: (path: string) => boolean): ParsedArguments {
  const line = parseCommandLine(argv, exists);
  const debug = line.values.debug === true;
  return { args: interpret(line), debug };
}

function interpret(line: ParsedCommandLine): Arguments {
  const { command, positionals, values } = line;
  const string = (name: string) => values[name] as string | undefined;
  const flag = (name: string) => values[name] === true;
  const list = (name: string) => (values[name] as string[] | undefined) ?? [];
  const noExtra = () => {
    if (positionals.length > 0) throw new UsageError(`\`probe-lint ${command}\` takes no arguments (got ${positionals.join(' ')})`);
  };
  switch (command) {
    case 'help':
      return line.helpFor !== undefined ? { command, helpFor: line.helpFor } : { command };
    case 'version':
      return { command };
    case 'rules':
      noExtra();
      return { command, format: oneOf(string('format') ?? 'text', RULES_FORMATS, '--format'), color: colorFlag(values) };
    case 'explain':
      if (positionals.length !== 1) throw new UsageError('explain takes exactly one rule id, e.g. probe-lint explain timeout-not-below-period');
      return { command, rule: positionals[0]! };
    case 'serve':
      return serveArguments(string, flag, noExtra);
    case 'timeline':
      if (positionals.length === 0) throw new UsageError('no input: give the manifests, charts or kustomizations whose timeline to show, or "-" for stdin');
      return {
        command,
        paths: positionals,
        container: string('container'),
        format: oneOf(string('format') ?? 'text', TIMELINE_FORMATS, '--format'),
        ...readingArguments(string, flag, list),
      };
    case 'simulate': {
      if (positionals.length === 0) throw new UsageError('no input: give the manifests, charts or kustomizations to simulate, or "-" for stdin');
      const spec = string('scenario');
      if (spec === undefined) throw new UsageError('simulate needs --scenario, e.g. --scenario outage=postgres:60s or --scenario hang=self:30s');
      let scenario: ScenarioPart[];
      try {
        scenario = parseScenario(spec);
      } catch (error) {
        if (error instanceof ScenarioError) throw new UsageError(`--scenario: ${error.message}`);
        throw error;
      }
      const failAbove = string('fail-above');
      if (failAbove !== undefined && !(/^\d{1,4}(\.\d{1,2})?$/.test(failAbove) && Number(failAbove) >= 1))
        throw new UsageError(`--fail-above takes a factor of 1 or more, e.g. 2 or 1.5 (got ${failAbove})`);
      return {
        command,
        paths: positionals,
        scenario,
        format: oneOf(string('format') ?? 'text', ['text', 'json', 'svg'] as const, '--format'),
        failAbove: failAbove === undefined ? undefined : Number(failAbove),
        ...readingArguments(string, flag, list),
      };
    }
    case 'lsp':
      noExtra();
      return { command, config: string('config'), render: renderOptions(string, flag, list) };
    case 'policies':
      noExtra();
      return {
        command,
        config: string('config'),
        namespace: string('namespace') ?? 'probe-lint',
        excludeNamespaces: list('exclude-namespace'),
        format: oneOf(string('format') ?? 'yaml', POLICY_FORMATS, '--format'),
      };
    case 'audit': {
      noExtra();
      if (string('namespace') !== undefined && flag('all-namespaces')) throw new UsageError('-n/--namespace and -A/--all-namespaces exclude each other');
      const sinceText = string('since') ?? '1h';
      const sinceMs = parseWindow(sinceText);
      if (sinceMs === undefined) throw new UsageError(`--since takes a duration such as 30m, 1h, 2h30m or 7d, up to a year (got "${sinceText}")`);
      if (flag('no-evidence') && string('since') !== undefined) throw new UsageError('--since and --no-evidence exclude each other');
      return {
        command,
        ...reportArguments(string, flag, list, values),
        namespace: string('namespace'),
        allNamespaces: flag('all-namespaces'),
        since: flag('no-evidence') ? undefined : { text: sinceText, ms: sinceMs },
        applyReports:
          string('apply-reports') === undefined ? undefined : oneOf(string('apply-reports')!, ['openreports', 'policyreport'] as const, '--apply-reports'),
        probeMetrics: probeMetricsArguments(string, flag),
        kubeconfig: string('kubeconfig'),
        context: string('context'),
      };
    }
    case 'lint': {
      if (positionals.length === 0) throw new UsageError('no input: give files or directories to lint, or "-" for stdin');
      if (flag('fix') && flag('fix-dry-run')) throw new UsageError('--fix and --fix-dry-run exclude each other');
      if (flag('fail-if-no-objects') && flag('no-fail-if-no-objects'))
        throw new UsageError('--fail-if-no-objects and --no-fail-if-no-objects exclude each other');
      const fixTypes = (string('fix-type') ?? 'fix').split(',').map((part) => part.trim());
      for (const type of fixTypes)
        if (type !== 'fix' && type !== 'suggestion') throw new UsageError(`--fix-type takes fix, suggestion or fix,suggestion (got "${type}")`);
      if (string('fix-type') !== undefined && !flag('fix') && !flag('fix-dry-run')) throw new UsageError('--fix-type goes with --fix or --fix-dry-run');
      if (flag('write-baseline') && flag('prune-baseline'))
        throw new UsageError('--write-baseline and --prune-baseline exclude each other (writing records every finding)');
      return {
        command,
        paths: positionals,
        ...reportArguments(string, flag, list, values),
        fix: flag('fix'),
        fixDryRun: flag('fix-dry-run'),
        fixTypes: fixTypes as FixKind[],
        failIfNoObjects: flag('fail-if-no-objects') ? true : flag('no-fail-if-no-objects') ? false : undefined,
        render: renderOptions(string, flag, list),
        exclude: list('exclude'),
        root: string('root'),
        onlyManifests: flag('only-manifests'),
        baseline: string('baseline'),
        writeBaseline: flag('write-baseline'),
        pruneBaseline: flag('prune-baseline'),
        changedSince: string('changed-since'),
      };
    }
  }
}

function renderOptions(string: (name: string) => string | undefined, flag: (name: string) => boolean, list: (name: string) => string[]): RenderOptions {
  return {
    helm: string('helm'),
    kustomize: string('kustomize'),
    values: list('values'),
    set: list('set'),
    enabled: !flag('no-render'),
    cache: !flag('no-render-cache'),
    limits: {
      allowNetwork: flag('allow-network'),
      ...seconds(string('render-timeout'), '--render-timeout', 'renderTimeoutMs'),
      ...seconds(string('render-budget'), '--render-budget', 'runBudgetMs'),
    },
  };
}

/** A duration in seconds from the command line, as milliseconds under `key`. */
function seconds<K extends string>(raw: string | undefined, flagName: string, key: K): Partial<Record<K, number>> {
  if (raw === undefined) return {};
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value <= 0 || value > 3600)
    throw new UsageError(`${flagName} takes a number of seconds between 0 and 3600 (got "${raw}")`);
  return { [key]: value * 1000 } as Partial<Record<K, number>>;
}

function reportArguments(
  string: (name: string) => string | undefined,
  flag: (name: string) => boolean,
  list: (name: string) => string[],
  values: ParsedCommandLine['values'],
): ReportArguments {
  let podsPerNode: number | undefined;
  const rawPods = string('pods-per-node');
  if (rawPods !== undefined) {
    podsPerNode = Number(rawPods);
    if (!Number.isFinite(podsPerNode) || podsPerNode <= 0) throw new UsageError(`--pods-per-node must be a positive number (got "${rawPods}")`);
  }
  return {
    format: oneOf<Format>(string('format') ?? 'text', REPORT_FORMATS, '--format'),
    noProgress: flag('no-progress'),
    reports: list('report').map((value) => {
      const equals = value.indexOf('=');
      if (equals <= 0 || equals === value.length - 1) throw new UsageError(`--report takes FORMAT=FILE (got "${value}")`);
      return { format: oneOf<Format>(value.slice(0, equals), REPORT_FORMATS, '--report'), file: value.slice(equals + 1) };
    }),
    failOn: oneOf(string('fail-on') ?? 'warning', FAIL_ON, '--fail-on'),
    minSeverity: oneOf(string('min-severity') ?? 'info', SEVERITIES, '--min-severity'),
    config: string('config'),
    enable: list('enable'),
    disable: list('disable'),
    podsPerNode,
    strict: flag('strict'),
    showSuppressed: flag('show-suppressed'),
    color: colorFlag(values),
  };
}

function probeMetricsArguments(string: (name: string) => string | undefined, flag: (name: string) => boolean): AuditArguments['probeMetrics'] {
  const source = string('probe-metrics');
  const prometheusOnly = ['prometheus-token-file', 'prometheus-ca-file'].filter((name) => string(name) !== undefined);
  if (source === undefined) {
    const stray = [...(string('probe-window') === undefined ? [] : ['probe-window']), ...prometheusOnly];
    if (stray.length > 0) throw new UsageError(`--${stray[0]} needs --probe-metrics`);
    return undefined;
  }
  if (flag('no-evidence')) throw new UsageError('--probe-metrics and --no-evidence exclude each other: probe metrics are runtime evidence');
  if (source === 'kubelet') {
    if (prometheusOnly.length > 0) throw new UsageError(`--${prometheusOnly[0]} is for a Prometheus --probe-metrics, not kubelet`);
    const text = string('probe-window') ?? '60s';
    const ms = parseWindow(text);
    if (ms === undefined || ms > 3_600_000) throw new UsageError(`--probe-window takes a duration such as 30s or 2m, up to 1h (got "${text}")`);
    return { kind: 'kubelet', window: { text, ms } };
  }
  if (string('probe-window') !== undefined) throw new UsageError('--probe-window is for --probe-metrics kubelet; Prometheus is read over --since');
  const url = prometheusUrl(source);
  if (typeof url === 'string') throw new UsageError(`--probe-metrics takes kubelet or a Prometheus base URL: ${url}`);
  return { kind: 'prometheus', url, tokenFile: string('prometheus-token-file'), caFile: string('prometheus-ca-file') };
}

function serveArguments(string: (name: string) => string | undefined, flag: (name: string) => boolean, noExtra: () => void): ServeArguments {
  noExtra();
  const cert = string('tls-cert');
  const key = string('tls-key');
  if (cert === undefined || key === undefined)
    throw new UsageError('serve needs --tls-cert FILE and --tls-key FILE: the API server only calls webhooks over HTTPS');
  const portNumber = (name: string, fallback?: number) => {
    const text = string(name);
    if (text === undefined && fallback === undefined) return undefined;
    const value = Number(text ?? fallback);
    if (text?.trim() === '' || !Number.isInteger(value) || value < 0 || value > 65535) throw new UsageError(`--${name} must be a port number (got "${text}")`);
    return value;
  };
  const port = portNumber('port', 8443)!;
  const healthPort = portNumber('health-port');
  if (healthPort !== undefined && healthPort !== 0 && healthPort === port)
    throw new UsageError(`--health-port must differ from --port (both are ${port}): the health port speaks plain HTTP`);
  const seconds = (name: string, fallback: number, allowZero: boolean) => {
    const value = Number(string(name) ?? fallback);
    if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0))
      throw new UsageError(`--${name} must be a ${allowZero ? 'non-negative' : 'positive'} number of seconds (got "${string(name)}")`);
    return value;
  };
  return {
    command: 'serve',
    port,
    healthPort,
    host: string('host'),
    tlsCert: cert,
    tlsKey: key,
    clientCa: string('client-ca'),
    config: string('config'),
    strict: flag('strict'),
    shutdownTimeout: seconds('shutdown-timeout', 20, false),
    shutdownDelay: seconds('shutdown-delay', 0, true),
    kubeconfig: string('kubeconfig'),
    context: string('context'),
  };
}

function colorFlag(values: ParsedCommandLine['values']): boolean | undefined {
  if (values.color === true && values['no-color'] === true) throw new UsageError('--color and --no-color exclude each other');
  return values['no-color'] === true ? false : values.color === true ? true : undefined;
}

/** The options of a command that reads inputs as lint does (timeline, simulate). */
function readingArguments(string: (name: string) => string | undefined, flag: (name: string) => boolean, list: (name: string) => string[]) {
  return {
    noProgress: flag('no-progress'),
    render: renderOptions(string, flag, list),
    config: string('config'),
    exclude: list('exclude'),
    root: string('root'),
    onlyManifests: flag('only-manifests'),
  };
}

function oneOf<T extends string>(value: string, allowed: readonly T[], option: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${option} must be one of ${allowed.join(', ')} (got "${value}")`);
  return value as T;
}
