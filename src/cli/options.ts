// The command line: one table of commands and options, from which the parser, `--help` and the
// README's option table are made. Node's own parseArgs reads the tokens; this module decides what
// they mean and says plainly what is wrong with them.
import { parseArgs } from 'node:util';
import { didYouMean } from '../engine/did-you-mean.js';
import { reportFormatsText, timelineFormatsText } from '../report/format-names.js';

export const COMMANDS = ['lint', 'rules', 'explain', 'timeline', 'simulate', 'audit', 'serve', 'policies', 'lsp', 'help', 'version'] as const;
export type CommandName = (typeof COMMANDS)[number];

export interface OptionSpec {
  name: string;
  short?: string;
  type: 'string' | 'boolean';
  /** Given more than once, the values add up. */
  multiple?: true;
  /** Each value may also be a comma-separated list. */
  commaList?: true;
  /** Shown in help: `--format FORMAT`. */
  value?: string;
  description: string;
  /** What it means for one command, where that differs (the help of `probe-lint COMMAND --help`). */
  descriptionFor?: Partial<Record<CommandName, string>>;
  commands: readonly CommandName[];
}

const REPORTING: readonly CommandName[] = ['lint', 'audit'];
const CONFIGURED: readonly CommandName[] = ['lint', 'timeline', 'simulate', 'audit', 'serve', 'policies', 'lsp'];
/** Only these read a kubeconfig: lint, timeline and the hook never do (a repository's kubeconfig can run an exec plugin with the job's secrets). */
const CLUSTER: readonly CommandName[] = ['audit', 'serve'];
/** Commands that read manifests, charts and kustomizations. */
const RENDERING: readonly CommandName[] = ['lint', 'timeline', 'simulate', 'lsp'];

export const OPTIONS: readonly OptionSpec[] = [
  {
    name: 'format',
    short: 'f',
    type: 'string',
    value: 'FORMAT',
    description: `lint, audit: ${reportFormatsText()}; rules: text, json or markdown; timeline: ${timelineFormatsText()}; simulate: text (default), json or svg; policies: yaml (default) or json`,
    descriptionFor: {
      lint: reportFormatsText(),
      audit: reportFormatsText(),
      rules: 'text (default), json or markdown',
      timeline: timelineFormatsText(),
      simulate: 'text (default), json or svg (the fleet picture)',
      policies: 'yaml (default) or json',
    },
    commands: ['lint', 'audit', 'rules', 'timeline', 'simulate', 'policies'],
  },
  {
    name: 'fail-on',
    type: 'string',
    value: 'LEVEL',
    description: 'exit 1 on findings at or above: error, warning (default), info, never',
    commands: REPORTING,
  },
  { name: 'min-severity', type: 'string', value: 'LEVEL', description: 'show only findings at or above: info (default), warning, error', commands: REPORTING },
  {
    name: 'no-progress',
    type: 'boolean',
    description: 'never draw progress on stderr (drawn only on a terminal, not in CI or with TERM=dumb, once work takes half a second)',
    commands: ['lint', 'timeline', 'simulate', 'audit'],
  },
  {
    name: 'report',
    type: 'string',
    multiple: true,
    value: 'FORMAT=FILE',
    description: 'also write the report in FORMAT to FILE, from the same run (repeatable; e.g. --report sarif=probe-lint.sarif --report markdown=summary.md)',
    commands: REPORTING,
  },
  {
    name: 'enable',
    type: 'string',
    multiple: true,
    commaList: true,
    value: 'RULE',
    description: 'turn a rule on (repeatable; with the config, the command line wins)',
    commands: REPORTING,
  },
  { name: 'disable', type: 'string', multiple: true, commaList: true, value: 'RULE', description: 'turn a rule off (repeatable)', commands: REPORTING },
  {
    name: 'config',
    short: 'c',
    type: 'string',
    value: 'FILE',
    description: 'configuration file (default: .probe-lint.yaml or .yml here or above, up to the top of the git work tree)',
    commands: CONFIGURED,
  },
  {
    name: 'pods-per-node',
    type: 'string',
    value: 'N',
    description: 'mean pods per node of the target cluster (for exec-probe-dense-cluster)',
    commands: REPORTING,
  },
  {
    name: 'strict',
    type: 'boolean',
    description: 'disregard probe-lint.dev/ignore annotations; only the config may exempt',
    commands: ['lint', 'audit', 'serve'],
  },
  { name: 'show-suppressed', type: 'boolean', description: 'also list suppressed findings and why', commands: REPORTING },
  { name: 'fail-if-no-objects', type: 'boolean', description: 'exit 2 when the input holds no Kubernetes object (default for stdin)', commands: ['lint'] },
  { name: 'no-fail-if-no-objects', type: 'boolean', description: 'accept input without Kubernetes objects, stdin too', commands: ['lint'] },
  {
    name: 'fix',
    type: 'boolean',
    description: 'apply fixes in place (comments and layout kept); with "-", print the fixed input; the report goes to stderr',
    commands: ['lint'],
  },
  { name: 'fix-dry-run', type: 'boolean', description: 'print the fixes as a unified diff instead of writing (report to stderr)', commands: ['lint'] },
  {
    name: 'fix-type',
    type: 'string',
    value: 'TYPES',
    description: 'which fixes --fix applies: fix (default; one right answer), suggestion (changes behaviour), or fix,suggestion',
    commands: ['lint'],
  },
  {
    name: 'exclude',
    type: 'string',
    multiple: true,
    value: 'GLOB',
    description:
      "never lint paths matching GLOB (relative to the working directory; a directory excludes all under it; repeatable; adds to the config's exclude)",
    commands: ['lint', 'timeline', 'simulate'],
  },
  {
    name: 'root',
    type: 'string',
    value: 'DIR',
    description:
      'the tree a chart, a kustomization or a linked manifest may read (default: the git work tree holding each input, else the input itself): an overlay outside git reaching ../../base needs it',
    commands: ['lint', 'timeline', 'simulate'],
  },
  {
    name: 'baseline',
    type: 'string',
    value: 'FILE',
    description:
      "findings it holds are old: reported apart, never counted for the exit code (default: the config's baseline, else .probe-lint-baseline.json here when it exists)",
    commands: ['lint'],
  },
  {
    name: 'write-baseline',
    type: 'boolean',
    description: "record today's findings as the baseline (--baseline FILE, or the default), and exit 0 on them",
    commands: ['lint'],
  },
  {
    name: 'changed-since',
    type: 'string',
    value: 'REF',
    description:
      'show only the findings located in files changed since the merge base of REF and HEAD (git: committed, staged, unstaged or untracked); charts and kustomizations are rendered whole, so a changed template or base is linted through everything that renders it, and the rest is counted apart',
    commands: ['lint'],
  },
  { name: 'prune-baseline', type: 'boolean', description: 'drop the entries of the baseline that are no longer found', commands: ['lint'] },
  {
    name: 'only-manifests',
    type: 'boolean',
    description:
      'of the files named, pass over those that hold no Kubernetes object (YAML that names no kind and does not parse), as a directory walk does: for names a hook or another tool lists (default: a file named is linted, and its invalid YAML is an input error)',
    commands: ['lint', 'timeline', 'simulate'],
  },
  { name: 'helm', type: 'string', value: 'PATH', description: 'the helm binary for rendering charts (default: helm on PATH)', commands: RENDERING },
  {
    name: 'kustomize',
    type: 'string',
    value: 'PATH',
    description: 'kustomize or kubectl binary for kustomizations (default: kubectl kustomize, else kustomize, on PATH)',
    commands: RENDERING,
  },
  { name: 'values', type: 'string', multiple: true, value: 'FILE', description: 'values file for the chart(s) given (repeatable)', commands: RENDERING },
  { name: 'set', type: 'string', multiple: true, value: 'KEY=VALUE', description: 'value for the chart(s) given (repeatable)', commands: RENDERING },
  { name: 'no-render', type: 'boolean', description: 'skip charts and kustomizations (one notice each) instead of rendering them', commands: RENDERING },
  {
    name: 'allow-network',
    type: 'boolean',
    description: 'let helm and kustomize reach the network while rendering (remote bases, schema references); off by default',
    commands: RENDERING,
  },
  {
    name: 'render-timeout',
    type: 'string',
    value: 'SECONDS',
    description: 'the longest one chart or kustomization may take to render (default 30)',
    commands: RENDERING,
  },
  {
    name: 'render-budget',
    type: 'string',
    value: 'SECONDS',
    description: 'the longest all renders of the run may take together (default 120)',
    commands: RENDERING,
  },
  {
    name: 'no-render-cache',
    type: 'boolean',
    description: 'render every chart again instead of reusing an unchanged one from the last run (kept in ~/.cache/probe-lint/render)',
    commands: RENDERING,
  },
  { name: 'container', type: 'string', value: 'NAME', description: 'only this container', commands: ['timeline'] },
  {
    name: 'scenario',
    type: 'string',
    value: 'SPEC',
    description:
      'what goes wrong, from when (@START) and for how long: outage=TARGET:60s[:blackhole] (a dependency refuses, or drops packets), slow=TARGET:1.5s:120s, hang=self:30s; several joined with commas',
    commands: ['simulate'],
  },
  {
    name: 'fail-above',
    type: 'string',
    value: 'FACTOR',
    description: "exit 1 when a workload's service is down longer than FACTOR times the scenario (or never comes back)",
    commands: ['simulate'],
  },
  {
    name: 'color',
    type: 'boolean',
    description: 'force colours on (default: on for a terminal; NO_COLOR, FORCE_COLOR and TERM=dumb are honoured)',
    commands: ['lint', 'audit', 'rules'],
  },
  { name: 'no-color', type: 'boolean', description: 'force colours off', commands: ['lint', 'audit', 'rules'] },
  {
    name: 'kubeconfig',
    type: 'string',
    value: 'FILE',
    description: 'the cluster to read workloads from (audit) or facts from (serve); default: KUBECONFIG, ~/.kube/config, or in-cluster',
    commands: CLUSTER,
  },
  { name: 'context', type: 'string', value: 'NAME', description: 'the kubeconfig context to use', commands: CLUSTER },
  {
    name: 'namespace',
    short: 'n',
    type: 'string',
    value: 'NS',
    description: "audit: only this namespace (default: the context's namespace); policies: where the parameters ConfigMap goes (default probe-lint)",
    commands: ['audit', 'policies'],
  },
  {
    name: 'exclude-namespace',
    type: 'string',
    multiple: true,
    commaList: true,
    value: 'NS',
    description: 'a namespace the policies leave alone, besides kube-system and their own (repeatable)',
    commands: ['policies'],
  },
  { name: 'all-namespaces', short: 'A', type: 'boolean', description: 'every namespace', commands: ['audit'] },
  {
    name: 'since',
    type: 'string',
    value: 'DURATION',
    description: 'the window of runtime evidence (Events: liveness kills, failed checks), e.g. 30m, 2h, 7d (default 1h)',
    commands: ['audit'],
  },
  {
    name: 'apply-reports',
    type: 'string',
    value: 'KIND',
    description: 'also write the findings into the cluster as openreports (Report) or policyreport (PolicyReport) objects, updated in place on the next run',
    commands: ['audit'],
  },
  { name: 'no-evidence', type: 'boolean', description: 'audit the specs only: read no Events or Pod statuses', commands: ['audit'] },
  {
    name: 'probe-metrics',
    type: 'string',
    value: 'SOURCE',
    description:
      "also measure the probes: kubelet (each node's /metrics/probes through the API server, read twice --probe-window apart) or a Prometheus base URL (over --since)",
    commands: ['audit'],
  },
  {
    name: 'probe-window',
    type: 'string',
    value: 'DURATION',
    description: 'with --probe-metrics kubelet: how long to measure, e.g. 30s, 2m (default 60s)',
    commands: ['audit'],
  },
  {
    name: 'prometheus-token-file',
    type: 'string',
    value: 'FILE',
    description: 'with a Prometheus --probe-metrics: a bearer token to send, read from this file',
    commands: ['audit'],
  },
  {
    name: 'prometheus-ca-file',
    type: 'string',
    value: 'FILE',
    description: "with an https Prometheus --probe-metrics: the CA certificates (PEM) to trust instead of the system's",
    commands: ['audit'],
  },
  { name: 'port', type: 'string', value: 'PORT', description: 'HTTPS port (default 8443)', commands: ['serve'] },
  {
    name: 'health-port',
    type: 'string',
    value: 'PORT',
    description: "also answer /healthz and /readyz over plain HTTP on this port, for the kubelet's probes (no TLS handshake to wait for under load)",
    commands: ['serve'],
  },
  {
    name: 'host',
    type: 'string',
    value: 'ADDRESS',
    description: 'address to listen on (default :: — every IPv6 and IPv4 address — or 0.0.0.0 without IPv6)',
    commands: ['serve'],
  },
  { name: 'tls-cert', type: 'string', value: 'FILE', description: 'serving certificate (PEM); re-read when it changes', commands: ['serve'] },
  { name: 'tls-key', type: 'string', value: 'FILE', description: 'serving key (PEM)', commands: ['serve'] },
  { name: 'client-ca', type: 'string', value: 'FILE', description: 'require client certificates signed by this CA', commands: ['serve'] },
  {
    name: 'shutdown-timeout',
    type: 'string',
    value: 'SECONDS',
    description: 'after SIGTERM, how long to finish reviews in flight (default 20)',
    commands: ['serve'],
  },
  {
    name: 'shutdown-delay',
    type: 'string',
    value: 'SECONDS',
    description: 'after SIGTERM, keep serving this long so the endpoint is removed first (default 0)',
    commands: ['serve'],
  },
  {
    name: 'debug',
    type: 'boolean',
    description: 'print the stack of an unexpected error',
    commands: ['lint', 'audit', 'serve', 'rules', 'explain', 'timeline', 'simulate', 'policies', 'lsp'],
  },
  { name: 'stdio', type: 'boolean', description: 'talk the Language Server Protocol over stdin and stdout (the default, and the only way)', commands: ['lsp'] },
  { name: 'help', short: 'h', type: 'boolean', description: 'show this help', commands: COMMANDS },
  { name: 'version', short: 'v', type: 'boolean', description: 'print the version', commands: COMMANDS },
];

/** A mistake on the command line: one line, and a pointer to --help; exit code 2. */
export class UsageError extends Error {}

export interface ParsedCommandLine {
  command: CommandName;
  positionals: string[];
  values: Record<string, string | boolean | string[] | undefined>;
  /** With --help after a command (`probe-lint timeline --help`): the command whose help to show. */
  helpFor?: CommandName;
}

const USAGE_LINES: [string, string][] = [
  ['probe-lint [lint] [options] PATH...', 'lint files and directories (*.yaml, *.yml, *.json; charts and kustomizations are rendered); "-" reads stdin'],
  ['probe-lint rules [--format text|json|markdown]', 'list the rules'],
  ['probe-lint explain RULE', "print a rule's documentation"],
  ['probe-lint timeline PATH... [--container NAME]', "when the kubelet acts on each container's probes: restart, unready, ready again, startup giving up"],
  ['probe-lint simulate PATH... --scenario SPEC', "what the workloads' replicas do when a dependency fails, and the smallest change that keeps it short"],
  ['probe-lint audit [-n NAMESPACE | -A] [options]', 'lint the workloads living in a cluster'],
  ['probe-lint serve --tls-cert FILE --tls-key FILE [options]', 'run the admission webhook (HTTPS)'],
  ['probe-lint policies [--config FILE] [-n NAMESPACE]', 'print the rules as admission policies (CEL) for kubectl apply'],
  ['probe-lint lsp [--stdio]', 'run the language server for editors (diagnostics, fixes, hover with the timeline)'],
];

/** `--help`, from the command and option tables; for one command (`probe-lint timeline --help`), its usage and options only. */
export function helpText(command?: CommandName): string {
  const usages = command === undefined ? USAGE_LINES : USAGE_LINES.filter(([usage]) => usageCommand(usage) === command);
  const options = command === undefined ? OPTIONS : OPTIONS.filter((option) => option.commands.includes(command));
  const commandWidth = Math.max(...usages.map(([usage]) => usage.length));
  const lines = ['Usage:'];
  for (const [usage, what] of usages) lines.push(`  ${usage.padEnd(commandWidth)}  ${what}`);
  lines.push('');
  if (command === undefined || command === 'lint')
    lines.push(`A path that is also a command name (${COMMANDS.join(', ')}) is written ./NAME;`, '"probe-lint lint PATH..." is the explicit form.', '');
  if (command === undefined || command === 'lint' || command === 'timeline' || command === 'simulate')
    lines.push('Paths after -- are paths, whatever they look like; so is an argument that names an existing file.', '');
  lines.push(command === undefined ? 'Options:' : `Options of probe-lint ${command}:`);
  const label = (option: OptionSpec) => `${option.short ? `-${option.short}, ` : '    '}--${option.name}${option.value ? ` ${option.value}` : ''}`;
  const width = Math.max(...options.map((option) => label(option).length));
  for (const option of options) {
    const where = command !== undefined || option.commands.length === COMMANDS.length ? '' : ` [${option.commands.join(', ')}]`;
    const description = (command === undefined ? undefined : option.descriptionFor?.[command]) ?? option.description;
    lines.push(`  ${label(option).padEnd(width)}  ${description}${where}`);
  }
  if (command !== undefined) {
    lines.push('', 'Every command: probe-lint --help. The documentation: https://github.com/probe-lint/probe-lint/tree/main/docs', '');
    return lines.join('\n');
  }
  lines.push(
    '',
    'Exit codes: 0 nothing at or above --fail-on; 1 findings at or above it; 2 a usage, input or config error, or a crash.',
    'After --fix, the exit code reflects what is left unfixed.',
    'Environment: LOG_LEVEL (serve: trace, debug, info, warn, error), NO_COLOR, FORCE_COLOR, KUBECONFIG.',
    '',
  );
  return lines.join('\n');
}

/**
 * The command line's operands kept apart from its options, so that a file name never becomes an option:
 * everything after `--` is an operand, and so is an argument before it that looks like an option but
 * names a file or directory that exists (a pre-commit hook passes staged names as they are: a file
 * named `--config=evil.yaml` is linted, never read as a config). The options keep their order; the
 * operands follow a `--`.
 */
export function separateOperands(argv: readonly string[], exists: (path: string) => boolean): string[] {
  const terminator = argv.indexOf('--');
  const before = terminator === -1 ? argv : argv.slice(0, terminator);
  const after = terminator === -1 ? [] : argv.slice(terminator + 1);
  const options: string[] = [];
  const operands: string[] = [];
  for (const argument of before) {
    if (argument.length > 1 && argument.startsWith('-') && exists(argument)) operands.push(argument);
    else options.push(argument);
  }
  return operands.length === 0 && terminator === -1 ? options : [...options, '--', ...operands, ...after];
}

/** Reads the command, its options and its positionals; every mistake is a UsageError that says what to do. */
export function parseCommandLine(argv: readonly string[], exists: (path: string) => boolean = () => false): ParsedCommandLine {
  const { tokens } = parseArgs({
    args: separateOperands(argv, exists),
    strict: false,
    allowPositionals: true,
    tokens: true,
    options: parseArgsOptions(),
  });
  const positionals: string[] = [];
  const values: ParsedCommandLine['values'] = {};
  let command: CommandName | undefined;
  const seen: { option: OptionSpec; rawName: string }[] = [];
  let operandsOnly = false;
  for (const token of tokens) {
    if (token.kind === 'option-terminator') {
      operandsOnly = true;
      continue;
    }
    if (token.kind === 'positional') {
      // After `--` every argument is an operand: a file named `lint` is linted, not read as the command.
      if (!operandsOnly && command === undefined && positionals.length === 0 && (COMMANDS as readonly string[]).includes(token.value))
        command = token.value as CommandName;
      else positionals.push(token.value);
      continue;
    }
    const option = OPTIONS.find((candidate) => candidate.name === token.name);
    if (option === undefined) {
      const names = OPTIONS.map((candidate) => `--${candidate.name}`);
      throw new UsageError(`unknown option ${token.rawName}${didYouMean(token.rawName.startsWith('--') ? token.rawName : `--${token.name}`, names, '')}`);
    }
    if (option.type === 'string') {
      if (token.value === undefined) throw new UsageError(`${token.rawName} needs a value: ${token.rawName} ${option.value ?? 'VALUE'}`);
      const given = option.commaList
        ? token.value
            .split(',')
            .map((part) => part.trim())
            .filter(Boolean)
        : [token.value];
      if (option.multiple) values[option.name] = [...((values[option.name] as string[] | undefined) ?? []), ...given];
      else values[option.name] = token.value;
    } else {
      if (token.value !== undefined) throw new UsageError(`${token.rawName} takes no value (got "${token.value}")`);
      values[option.name] = true;
    }
    seen.push({ option, rawName: token.rawName });
  }
  const resolved = values.help ? 'help' : values.version ? 'version' : (command ?? 'lint');
  // `probe-lint timeline --help`: that command's help; a bare --help, everything's.
  const helpFor = values.help && command !== undefined && command !== 'help' && command !== 'version' ? command : undefined;
  for (const { option, rawName } of seen) {
    if (option.name === 'help' || option.name === 'version') continue;
    if (!option.commands.includes(resolved))
      throw new UsageError(`${rawName} does not apply to \`probe-lint ${resolved}\` (it is for: ${option.commands.join(', ')})`);
  }
  return { command: resolved, positionals, values, ...(helpFor !== undefined ? { helpFor } : {}) };
}

/** The command a usage line documents: `probe-lint [lint] …` is lint's. */
function usageCommand(usage: string): CommandName {
  const word = usage.split(' ')[1]!.replace(/[[\]]/g, '');
  return (COMMANDS as readonly string[]).includes(word) ? (word as CommandName) : 'lint';
}

function parseArgsOptions(): Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const option of OPTIONS) {
    options[option.name] = { type: option.type, ...(option.short ? { short: option.short } : {}), ...(option.multiple ? { multiple: true } : {}) };
  }
  return options;
}
