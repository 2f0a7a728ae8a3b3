// The other host an exec probe contacts, read from its command as the kubelet runs it (after its
// $(VAR) expansion): a database or cache client given a host, an HTTP client given a URL, nc or
// grpc_health_probe given an address — also inside `sh -c` / `bash -c` scripts, in any position.
// Conservative by construction: a host the shell computes at run time, a Unix socket, loopback, an
// empty host and the pod's own IP (a valueFrom variable expands to "" in a probe's command) are
// never a finding. The command is read by exec-command.ts; this file knows the clients. Shared by the
// rules and by simulate, which asks which probes reach a dependency.

import { commandsRun, firstUrlHost, goFlagValue, hasOption, optionValue, type Word } from './exec-command.js';
import { isLoopback, unbracket } from './loopback.js';
import type { WorkBudget } from './work-budget.js';

export interface RemoteHost {
  /** The program that contacts it (pg_isready, curl…). */
  program: string;
  host: string;
  /** The index in exec.command of the item that names it (the script, for a shell's -c). */
  commandIndex: number;
}

/** The remote host the command contacts, if it names one; the first one when it names several. */
export function remoteHost(command: readonly string[], budget?: WorkBudget): RemoteHost | undefined {
  for (const run of commandsRun(command, budget)) {
    const host = CLIENTS.get(run.program)?.(run.args);
    if (host === undefined || host.dynamic || !isRemote(host.text)) continue;
    const named = command.findIndex((item) => item.includes(host.text));
    return { program: run.program, host: host.text, commandIndex: named === -1 ? run.commandIndex : named };
  }
  return undefined;
}

type HostReader = (args: readonly Word[]) => Word | undefined;

/** libpq: -h/--host, or a postgres:// URL; a host that is a directory is a Unix socket's. */
const postgres: HostReader = (args) => {
  const host = optionValue(args, '-h', '--host') ?? firstUrlHost(args, /^postgres(ql)?$/i);
  return host?.text.startsWith('/') ? undefined : host;
};

/** MySQL and MariaDB clients: -h/--host, unless a socket is named. */
const mysql: HostReader = (args) => (hasOption(args, '-S', '--socket') ? undefined : optionValue(args, '-h', '--host'));

/** redis-cli and valkey-cli: -h, or a redis:// URL (-u); -s is a socket. */
const redis: HostReader = (args) => (hasOption(args, '-s') ? undefined : (optionValue(args, '-h', undefined) ?? firstUrlHost(args, /^(rediss?|valkeys?)$/i)));

/** The first host of mongosh's --host (which takes "replicaSet/host1:port,host2" too) or of a mongodb:// URL. */
const mongo: HostReader = (args) => {
  const host = optionValue(args, undefined, '--host') ?? firstUrlHost(args, /^mongodb(\+srv)?$/i);
  return host === undefined ? undefined : { text: hostOfAddress(host.text.replace(/^[^/]*\//, '').split(',')[0]!), dynamic: host.dynamic };
};

/** nc's first operand is the host; these options take a value. */
const NETCAT_VALUES = new Set(['-w', '-i', '-p', '-s', '-q', '-W', '-x', '-X', '-T', '-O', '-I', '-P', '-e', '-c', '-G', '-g', '-m', '-M', '-V']);

const netcat: HostReader = (args) => {
  if (hasOption(args, '-U', '-l')) return undefined;
  for (let index = 0; index < args.length; index++) {
    const word = args[index]!;
    if (NETCAT_VALUES.has(word.text)) index++;
    else if (!word.text.startsWith('-')) return word;
  }
  return undefined;
};

const CLIENTS: ReadonlyMap<string, HostReader> = new Map(
  Object.entries({
    pg_isready: postgres,
    psql: postgres,
    mysqladmin: mysql,
    mysql,
    mariadb: mysql,
    'mariadb-admin': mysql,
    'redis-cli': redis,
    'valkey-cli': redis,
    mongosh: mongo,
    mongo,
    // Through a socket, or with the address resolved to another one, curl's URL is not where it connects.
    curl: (args) => (hasOption(args, '--unix-socket', '--abstract-unix-socket', '--connect-to', '--resolve') ? undefined : firstUrlHost(args, /^https?$/i)),
    wget: (args) => firstUrlHost(args, /^https?$/i),
    nc: netcat,
    ncat: netcat,
    netcat,
    grpc_health_probe: (args) => {
      const address = goFlagValue(args, 'addr');
      return address === undefined ? undefined : { text: hostOfAddress(address.text), dynamic: address.dynamic };
    },
  }),
);

/** host of host:port, [v6]:port or a bare host. */
function hostOfAddress(address: string): string {
  if (address.startsWith('[')) return address.slice(0, address.indexOf(']') + 1);
  const colons = address.split(':').length - 1;
  return colons === 1 ? address.slice(0, address.indexOf(':')) : address;
}

/** Names and addresses of the container itself that are not loopback: unspecified addresses connect to it too. */
const LOCAL_NAMES = new Set(['', 'ip6-localhost', 'ip6-loopback', '0', '0.0.0.0', '::']);

/** Anything but an empty host, a loopback or unspecified address, or a name for one. */
export function isRemote(host: string): boolean {
  const name = unbracket(host.toLowerCase());
  if (LOCAL_NAMES.has(name) || isLoopback(name) || name.endsWith('.localhost')) return false;
  // inet_aton's short forms, which curl, wget and nc take: 127.1 is 127.0.0.1.
  return !/^127(\.\d+){0,2}$/.test(name);
}
