// The other host an exec probe contacts, read from its command as the kubelet runs it (after its
// $(VAR) expansion): a database or cache client given a host, an HTTP client given a URL, nc or
// grpc_health_probe given an address — also inside `sh -c` / `bash -c` scripts. Conservative by
// construction: a host the shell computes at run time, a Unix socket, loopback, an empty host and
// the pod's own IP (a valueFrom variable expands to "" in a probe's command) are never a finding.

import { isLoopback, unbracket } from '../../src/rule-api.js';

/** A word of a command: its text, and whether the shell computes part of it at run time. */
interface Word {
  text: string;
  dynamic: boolean;
}

export interface RemoteHost {
  /** The program that contacts it (pg_isready, curl…). */
  program: string;
  host: string;
  /** The index in exec.command of the item that names it (the script, for a shell's -c). */
  commandIndex: number;
}

const SHELLS = new Set(['sh', 'bash', 'ash', 'dash', 'zsh', 'ksh', 'mksh']);

/** Words that run the command after them: how many operands of their own follow their options. A Map: a command word may be "constructor". */
const RUNS_NEXT: ReadonlyMap<string, number> = new Map(
  Object.entries({
    exec: 0,
    command: 0,
    nohup: 0,
    nice: 0,
    env: 0,
    busybox: 0,
    timeout: 1,
    // Shell keywords before a command.
    if: 0,
    then: 0,
    else: 0,
    elif: 0,
    do: 0,
    while: 0,
    until: 0,
    '!': 0,
    '{': 0,
    time: 0,
  }),
);

/** Scripts inside scripts (`sh -c "bash -c '…'"`) are read this deep. */
const MAX_NESTING = 4;

/** The remote host the command contacts, if it names one; the first one when it names several. */
export function remoteHost(command: readonly string[]): RemoteHost | undefined {
  // Without a shell the kubelet runs the words as they are: a `$` left after its expansion is text the program sees.
  const words = command.map((text) => ({ text, dynamic: text.includes('$') }));
  const found = hostOf(words, 0);
  if (found === undefined) return undefined;
  const commandIndex = command.findIndex((item) => item.includes(found.host));
  return { ...found, commandIndex: Math.max(commandIndex, 0) };
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The simple commands of a shell script, split at ; & | && || ( ) and line ends, each as its words. */
export function shellCommands(script: string): Word[][] {
  const commands: Word[][] = [];
  let words: Word[] = [];
  let text = '';
  let dynamic = false;
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push({ text, dynamic });
    text = '';
    dynamic = false;
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let index = 0; index < script.length; index++) {
    const character = script[index]!;
    if (character === '\\' && index + 1 < script.length) {
      text += script[++index];
      inWord = true;
    } else if (character === "'") {
      const close = script.indexOf("'", index + 1);
      const end = close === -1 ? script.length : close;
      text += script.slice(index + 1, end);
      index = end;
      inWord = true;
    } else if (character === '"') {
      let close = index + 1;
      while (close < script.length && script[close] !== '"') {
        if (script[close] === '\\') close++;
        else if (script[close] === '$' || script[close] === '`') dynamic = true;
        close++;
      }
      text += script.slice(index + 1, close).replace(/\\(["\\$`])/g, '$1');
      index = close;
      inWord = true;
    } else if (character === '$' || character === '`') {
      // A variable, a command substitution or arithmetic: known only when the script runs.
      dynamic = true;
      text += character;
      inWord = true;
    } else if (character === '#' && !inWord) {
      const end = script.indexOf('\n', index);
      index = end === -1 ? script.length : end - 1;
    } else if (';&|\n()'.includes(character)) {
      endCommand();
    } else if (character === ' ' || character === '\t' || character === '\r') {
      endWord();
    } else {
      text += character;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

/** The host a simple command contacts, by its program's documented options; undefined when none, or only local ones. */
function hostOf(command: readonly Word[], depth: number): { program: string; host: string } | undefined {
  // Assignments before the command (`PGCONNECT_TIMEOUT=2 pg_isready …`) set its environment.
  let words = command.filter((word, index) => index > 0 || !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word.text));
  for (;;) {
    const operands = RUNS_NEXT.get(basename(words[0]?.text ?? ''));
    if (operands === undefined) break;
    let rest = words.slice(1);
    while (rest[0] !== undefined && (rest[0].text.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0].text))) rest = rest.slice(1);
    words = rest.slice(operands);
  }
  const program = basename(words[0]?.text ?? '');
  if (SHELLS.has(program)) return depth < MAX_NESTING ? scriptHost(words.slice(1), depth + 1) : undefined;
  const reader = CLIENTS.get(program);
  const host = reader?.(words.slice(1));
  if (host === undefined || host.dynamic || !isRemote(host.text)) return undefined;
  return { program, host: host.text };
}

/** The host the script of `sh -c SCRIPT` contacts; a script that is computed, or read from a file, is not read. */
function scriptHost(args: readonly Word[], depth: number): { program: string; host: string } | undefined {
  const flag = args.findIndex((word) => /^-[a-z]+$/.test(word.text) && word.text.includes('c'));
  const script = flag === -1 ? undefined : args[flag + 1];
  if (script === undefined || script.dynamic) return undefined;
  for (const simple of shellCommands(script.text)) {
    const found = hostOf(simple, depth);
    if (found !== undefined) return found;
  }
  return undefined;
}

type HostReader = (args: readonly Word[]) => Word | undefined;

/** The value of an option written `-h HOST`, `-hHOST`, `--host HOST` or `--host=HOST`; the last one wins, as getopt reads it. */
function optionValue(args: readonly Word[], short: string | undefined, long: string | undefined): Word | undefined {
  let found: Word | undefined;
  for (let index = 0; index < args.length; index++) {
    const { text, dynamic } = args[index]!;
    if (long !== undefined && text === long) found = args[index + 1];
    else if (long !== undefined && text.startsWith(`${long}=`)) found = { text: text.slice(long.length + 1), dynamic };
    else if (short !== undefined && text === short) found = args[index + 1];
    else if (short !== undefined && text.startsWith(short) && !text.startsWith('--') && text.length > short.length)
      found = { text: text.slice(short.length), dynamic };
  }
  return found;
}

/** A Go flag's value: `-name value`, `-name=value`, or the same with two dashes; the last one wins. */
function goFlagValue(args: readonly Word[], name: string): Word | undefined {
  let found: Word | undefined;
  for (let index = 0; index < args.length; index++) {
    const { text, dynamic } = args[index]!;
    const flag = /^--?([^=]+)(?:=([\s\S]*))?$/.exec(text);
    if (flag?.[1] !== name) continue;
    found = flag[2] === undefined ? args[index + 1] : { text: flag[2], dynamic };
  }
  return found;
}

function hasOption(args: readonly Word[], ...options: string[]): boolean {
  return args.some((word) => options.some((option) => word.text === option || word.text.startsWith(`${option}=`)));
}

/** The host of a URL (scheme://[user@]host[:port]/…) of one of `schemes`, or undefined for text that is none. */
function urlHost(word: Word, schemes: RegExp): Word | undefined {
  const match = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#,]*)/i.exec(word.text);
  if (match === null || !schemes.test(match[1]!)) return undefined;
  return { text: match[2]!, dynamic: word.dynamic };
}

function firstUrlHost(args: readonly Word[], schemes: RegExp): Word | undefined {
  for (const word of args) {
    const host = urlHost(word, schemes);
    if (host !== undefined) return host;
  }
  return undefined;
}

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
