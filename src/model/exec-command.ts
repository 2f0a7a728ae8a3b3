// What an exec probe runs, read as the kubelet and a shell would: `$(VAR)` expanded from the
// container's static env, the words of `sh -c` scripts split into simple commands, wrappers
// (`exec`, `nice`, `timeout 5` …) and assignments stripped, and the options a program is given.
// Every rule that judges exec probes reads commands through here (src/rule-api.ts). The command is
// a tenant's text: every reader is linear in it and draws from the lint's work budget.
import type { Container } from 'kubernetes-types/core/v1.js';
import type { EffectiveProbe } from './effective-probe.js';
import { UNLIMITED_WORK, type WorkBudget } from './work-budget.js';

/** A word of a command: its text, and whether the shell computes part of it at run time. */
export interface Word {
  text: string;
  dynamic: boolean;
}

/** A command the probe runs: its program (a basename) and the words after it. */
export interface SimpleCommand {
  program: string;
  args: readonly Word[];
  /** The index in exec.command of the item it is written in (the script, for a shell's -c). */
  commandIndex: number;
}

export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'ash', 'dash', 'zsh', 'ksh', 'mksh']);

/**
 * Words that run the command after them: how many operands of their own follow their options, and
 * which of their options take a value. A Map: a command word may be "constructor".
 */
const RUNS_NEXT: ReadonlyMap<string, { operands: number; valued: readonly string[] }> = new Map(
  Object.entries({
    exec: { operands: 0, valued: ['-a'] },
    command: { operands: 0, valued: [] },
    nohup: { operands: 0, valued: [] },
    nice: { operands: 0, valued: ['-n'] },
    env: { operands: 0, valued: ['-u', '-C', '--unset', '--chdir'] },
    busybox: { operands: 0, valued: [] },
    timeout: { operands: 1, valued: ['-s', '-k', '--signal', '--kill-after'] },
    // Shell keywords before a command.
    if: { operands: 0, valued: [] },
    then: { operands: 0, valued: [] },
    else: { operands: 0, valued: [] },
    elif: { operands: 0, valued: [] },
    do: { operands: 0, valued: [] },
    while: { operands: 0, valued: [] },
    until: { operands: 0, valued: [] },
    '!': { operands: 0, valued: [] },
    '{': { operands: 0, valued: [] },
    time: { operands: 0, valued: [] },
  }),
);

/** Scripts inside scripts (`sh -c "bash -c '…'"`) are read this deep. */
const MAX_NESTING = 4;

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * Every simple command an exec probe runs, in order: the command itself and, for a shell given
 * `-c SCRIPT`, each command of the script (nested shells too, up to four deep). A script that is
 * computed at run time is not read.
 */
export function commandsRun(command: readonly string[], budget: WorkBudget = UNLIMITED_WORK): SimpleCommand[] {
  // Without a shell the kubelet runs the words as they are: a `$` left after its expansion is text the program sees.
  const words = command.map((text) => ({ text, dynamic: text.includes('$') }));
  budget.spend(words.length);
  const found: SimpleCommand[] = [];
  const visit = (simple: readonly Word[], depth: number, commandIndex: (word: Word) => number) => {
    const run = strippedCommand(simple);
    if (run === undefined) return;
    if (SHELLS.has(run.program)) {
      const script = depth < MAX_NESTING ? scriptOf(run.args) : undefined;
      if (script === undefined) return;
      const index = commandIndex(script);
      for (const inner of shellCommands(script.text, budget)) visit(inner, depth + 1, () => index);
      return;
    }
    found.push({ ...run, commandIndex: commandIndex(run.args[0] ?? simple[0]!) });
  };
  visit(words, 0, (word) => Math.max(words.indexOf(word), 0));
  return found;
}

/** The command with its leading assignments and wrappers stripped: its program and arguments; undefined when empty. */
function strippedCommand(words: readonly Word[]): { program: string; args: readonly Word[] } | undefined {
  // Assignments before the command (`PGCONNECT_TIMEOUT=2 pg_isready …`) set its environment.
  let at = 0;
  while (at < words.length && ASSIGNMENT.test(words[at]!.text)) at++;
  // One index moves forward over every wrapper: linear in the words, however many wrappers there are.
  for (let wrapper = RUNS_NEXT.get(basename(words[at]?.text ?? '')); wrapper !== undefined; wrapper = RUNS_NEXT.get(basename(words[at]?.text ?? ''))) {
    at++;
    while (at < words.length && (words[at]!.text.startsWith('-') || ASSIGNMENT.test(words[at]!.text))) {
      at += wrapper.valued.includes(words[at]!.text) ? 2 : 1;
    }
    at += wrapper.operands;
  }
  if (at >= words.length) return undefined;
  return { program: basename(words[at]!.text), args: words.slice(at + 1) };
}

/** The script of a shell's `-c SCRIPT` (`-c`, `-ec`, `-xc` …), or undefined when there is none or it is computed. */
function scriptOf(args: readonly Word[]): Word | undefined {
  const flag = args.findIndex((word) => /^-[a-z]+$/.test(word.text) && word.text.includes('c'));
  const script = flag === -1 ? undefined : args[flag + 1];
  return script === undefined || script.dynamic ? undefined : script;
}

/** The simple commands of a shell script, split at ; & | && || ( ) and line ends, each as its words. */
export function shellCommands(script: string, budget: WorkBudget = UNLIMITED_WORK): Word[][] {
  budget.spend(script.length);
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

/** The value of an option written `-h HOST`, `-hHOST`, `--host HOST` or `--host=HOST`; the last one wins, as getopt reads it. */
export function optionValue(args: readonly Word[], short: string | undefined, long: string | undefined): Word | undefined {
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
export function goFlagValue(args: readonly Word[], name: string): Word | undefined {
  let found: Word | undefined;
  for (let index = 0; index < args.length; index++) {
    const { text, dynamic } = args[index]!;
    const flag = /^--?([^=]+)(?:=([\s\S]*))?$/.exec(text);
    if (flag?.[1] !== name) continue;
    found = flag[2] === undefined ? args[index + 1] : { text: flag[2], dynamic };
  }
  return found;
}

export function hasOption(args: readonly Word[], ...options: string[]): boolean {
  return args.some((word) => options.some((option) => word.text === option || word.text.startsWith(`${option}=`)));
}

/** The host of a URL (scheme://[user@]host[:port]/…) of one of `schemes`, or undefined for text that is none. */
export function urlHost(word: Word, schemes: RegExp): Word | undefined {
  const match = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#,]*)/i.exec(word.text);
  if (match === null || !schemes.test(match[1]!)) return undefined;
  return { text: match[2]!, dynamic: word.dynamic };
}

export function firstUrlHost(args: readonly Word[], schemes: RegExp): Word | undefined {
  for (const word of args) {
    const host = urlHost(word, schemes);
    if (host !== undefined) return host;
  }
  return undefined;
}

/**
 * The exec command as the kubelet runs it: `$(VAR)` expanded from the container's static env
 * (kubelet ExpandContainerCommandOnlyStatic), where a variable set by valueFrom is "" — the pod's
 * IP, a Secret's value — whatever the container's process sees.
 */
export function execCommand(probe: EffectiveProbe, container: Container): string[] {
  // Stryker disable next-line OptionalChaining,ConditionalExpression,LogicalOperator,StringLiteral: exec is present; parts are strings
  const parts = (probe.raw.exec?.command ?? []).map((part) => (typeof part === 'string' ? part : (JSON.stringify(part) ?? '')));
  // Most commands reference no variable: the container's env is then not read at all (this runs per exec probe admitted).
  if (!parts.some((part) => part.includes('$'))) return parts;
  const env = staticEnv(container);
  return parts.map((part) => expandVariables(part, env));
}

/**
 * The container's env as written: name → literal value, or undefined for one set by valueFrom (known
 * only in the cluster); the last entry of a name wins, as in the container's process.
 */
export function writtenEnv(container: Container): Map<string, string | undefined> {
  const env = new Map<string, string | undefined>();
  // An entry that is not a mapping, or a name that is no string, is undecodable: counted when an exec
  // command expands $(VAR), and then the container is not judged.
  // Stryker disable next-line ArrayDeclaration,ConditionalExpression: an entry that is no mapping or a name that is no string is undecodable
  for (const entry of container.env ?? []) {
    // Stryker disable next-line ConditionalExpression: an env entry that is no mapping, or a name that is no string, is undecodable.
    if (entry !== null && typeof entry === 'object' && typeof entry.name === 'string')
      env.set(entry.name, entry.valueFrom === undefined || entry.valueFrom === null ? (typeof entry.value === 'string' ? entry.value : '') : undefined);
  }
  return env;
}

/** name → value for $(VAR): a valueFrom entry expands to "" (kubelet EnvVarsToMap takes each entry's Value, empty for valueFrom). */
function staticEnv(container: Container): Map<string, string> {
  return new Map([...writtenEnv(container)].map(([name, value]) => [name, value ?? '']));
}

/**
 * Kubernetes' `$(VAR)` expansion (third_party/forked/golang/expansion): `$$` is a literal `$`,
 * an unknown or unterminated reference is kept as written. One pass: a value is never expanded
 * again, so a chain of variables costs its length.
 */
export function expandVariables(input: string, env: ReadonlyMap<string, string>): string {
  // Stryker disable next-line ConditionalExpression,StringLiteral: a shortcut; without "$" the loop copies the input.
  if (!input.includes('$')) return input;
  let output = '';
  let checkpoint = 0;
  // Once no `)` follows, none follows any later `$(` either: each is not searched for again (`$($($(…` is linear).
  let closed = true;
  // Stryker disable next-line EqualityOperator: one step past the end reads undefined, which is no "$".
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    output += input.slice(checkpoint, cursor);
    const next = input[cursor + 1];
    let advance = 1;
    if (next === '$') output += '$';
    else if (next === '(') {
      const close = closed ? input.indexOf(')', cursor + 2) : -1;
      if (close === -1) closed = false;
      if (close === -1) output += '$(';
      else {
        const name = input.slice(cursor + 2, close);
        output += env.get(name) ?? `$(${name})`;
        advance = close - cursor;
      }
    } else output += `$${next}`;
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return output + input.slice(checkpoint);
}
