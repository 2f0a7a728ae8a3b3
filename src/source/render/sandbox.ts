// The rendering sandbox. A repository's charts and kustomizations are written by whoever opened the
// pull request, while the CI job that lints them often holds secrets, so helm and kustomize run with:
// - an environment made from an allow-list (no tokens, cloud credentials, KUBECONFIG or HELM_*
//   settings of the caller), HOME, caches, config and plugin folders in a fresh temporary directory;
// - no network: on Linux, where the kernel lets us, a new network namespace (nothing is reachable,
//   loopback included); everywhere, proxy variables aimed at a local proxy that refuses every request
//   and records what was asked, and git limited to no transport at all;
// - a time limit per render and a budget per run, and a bound on what a render may print;
// - its whole process group killed when a limit is hit (kustomize starts git, which would outlive it).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { writeFileAtomic } from '../atomic-write.js';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { trimTrailing } from '../../model/trim-trailing.js';
import { findOnPath, toolMessage, type ToolRun } from './run-tool.js';

export interface SandboxLimits {
  /** Let renders reach the network (remote bases, schema references), with short fetch timeouts. */
  allowNetwork: boolean;
  /** One render's limit. */
  renderTimeoutMs: number;
  /** All renders of one run together. */
  runBudgetMs: number;
  /** The most a render may print. */
  maxOutputBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  allowNetwork: false,
  renderTimeoutMs: 30_000,
  runBudgetMs: 120_000,
  maxOutputBytes: 64 * 1024 * 1024,
};

/**
 * Variables passed through from the caller: how to find programs, how to print text and how much
 * memory the Go runtime may use (the platform's setting wins over ours below), nothing that grants access.
 */
const PASSED_THROUGH = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES', 'TZ', 'GOGC', 'GOMEMLIMIT'];

/** With --allow-network only: how the caller's own network is reached (a corporate proxy, its CA). */
const PASSED_WITH_NETWORK = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'SSL_CERT_FILE', 'SSL_CERT_DIR'];

/**
 * helm and kustomize are Go programs that live for tens of milliseconds, and at Go's default (100)
 * they collect several times while starting (the heap begins at 4 MB); two renders side by side then
 * spend much of their CPU in each other's collector. At 400, 26 renderings two at a time took 0.41 of
 * their time one after another, against 0.60 at the default; a 5,000-Deployment rendering peaked at
 * 92 MB against 62 (with collection off: 287). docs/performance.md has the measurements.
 */
export const RENDERER_GOGC = '400';

export interface SandboxedRun extends ToolRun {
  /** Why the run was stopped, when it was: over time, over the run's budget, or printing too much. */
  stopped?: 'timeout' | 'budget' | 'output';
  /** What the tool tried to reach while the network was off (URLs or host:port), as recorded or as it said. */
  networkAttempts: string[];
}

let namespaceCommand: string[] | null | undefined;

/**
 * `unshare` with a new network namespace, when this system allows one (Linux; as root, or with
 * unprivileged user namespaces). Checked once per process; null where it cannot be had.
 */
function networkNamespaceCommand(): string[] | null {
  if (namespaceCommand !== undefined) return namespaceCommand;
  namespaceCommand = null;
  if (process.platform !== 'linux' || process.env.PROBE_LINT_NO_NETNS === '1') return namespaceCommand;
  const unshare = findOnPath(['unshare'], process.env);
  if (unshare === undefined) return namespaceCommand;
  const candidates = process.getuid?.() === 0 ? [['--net'], ['--user', '--map-root-user', '--net']] : [['--user', '--map-root-user', '--net']];
  for (const flags of candidates) {
    const probe = spawnSync(unshare, [...flags, 'true'], { stdio: 'ignore', timeout: 5_000 });
    if (probe.status === 0) {
      namespaceCommand = [unshare, ...flags];
      break;
    }
  }
  return namespaceCommand;
}

export class RenderSandbox {
  private readonly home: string;
  private readonly started = Date.now();
  private closed = false;

  constructor(readonly limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS) {
    this.home = mkdtempSync(join(tmpdir(), 'probe-lint-render-'));
    for (const folder of ['home', 'tmp', 'cache', 'config', 'data', 'plugins']) mkdirSync(join(this.home, folder));
    writeFileAtomic(join(this.home, 'kubeconfig'), Buffer.alloc(0), { mode: 0o600 });
  }

  /** A fresh directory inside the sandbox's own, removed with it (a chart copy to render, say). */
  scratchDirectory(): string {
    return mkdtempSync(join(this.home, 'tmp', 'scratch-'));
  }

  /** Milliseconds left of the run's budget. */
  remainingBudgetMs(): number {
    return this.limits.runBudgetMs - (Date.now() - this.started);
  }

  /** The environment a renderer sees: nothing of the caller's but PATH, locale and the Go runtime's memory settings. */
  environment(proxyUrl: string | undefined, caller: Readonly<Record<string, string | undefined>> = process.env): Record<string, string> {
    const env: Record<string, string> = {};
    const pass = this.limits.allowNetwork ? [...PASSED_THROUGH, ...PASSED_WITH_NETWORK] : PASSED_THROUGH;
    for (const name of pass) {
      const value = caller[name];
      if (value !== undefined) env[name] = value;
    }
    env.GOGC ??= RENDERER_GOGC;
    const at = (folder: string) => join(this.home, folder);
    Object.assign(env, {
      HOME: at('home'),
      TMPDIR: at('tmp'),
      XDG_CACHE_HOME: at('cache'),
      XDG_CONFIG_HOME: at('config'),
      XDG_DATA_HOME: at('data'),
      // helm: its own folders, an empty plugin folder (no plugin, downloader or post-renderer of
      // anyone's runs), no repositories or registry logins of the caller.
      HELM_CACHE_HOME: at('cache'),
      HELM_CONFIG_HOME: at('config'),
      HELM_DATA_HOME: at('data'),
      HELM_PLUGINS: at('plugins'),
      HELM_REGISTRY_CONFIG: join(at('config'), 'registry.json'),
      HELM_REPOSITORY_CONFIG: join(at('config'), 'repositories.yaml'),
      HELM_REPOSITORY_CACHE: join(at('cache'), 'repository'),
      HELM_DEBUG: 'false',
      KUBECONFIG: at('kubeconfig'),
      // git (kustomize runs it for remote bases): no system or user config, no prompts, no ssh.
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
      GIT_SSH_COMMAND: 'false',
    });
    if (this.limits.allowNetwork) {
      // Remote bases over https only, and a stalled transfer given up after 10 s.
      Object.assign(env, { GIT_ALLOW_PROTOCOL: 'https', GIT_HTTP_LOW_SPEED_LIMIT: '1', GIT_HTTP_LOW_SPEED_TIME: '10' });
    } else {
      env.GIT_ALLOW_PROTOCOL = 'none';
      if (proxyUrl !== undefined) {
        for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy']) env[name] = proxyUrl;
        env.NO_PROXY = '';
        env.no_proxy = '';
      }
    }
    return env;
  }

  /** Runs a renderer inside the sandbox; never throws. */
  async run(binary: string, args: readonly string[], cwd: string): Promise<SandboxedRun> {
    if (this.closed) throw new Error('the render sandbox is closed');
    const budget = this.remainingBudgetMs();
    if (budget <= 0) return { code: null, stdout: '', stderr: '', stopped: 'budget', networkAttempts: [] };
    const proxy = this.limits.allowNetwork ? undefined : await RefusingProxy.start();
    try {
      const namespace = this.limits.allowNetwork ? null : networkNamespaceCommand();
      const [command, commandArgs] = namespace === null ? [binary, [...args]] : [namespace[0]!, [...namespace.slice(1), binary, ...args]];
      const timeout = Math.min(this.limits.renderTimeoutMs, budget);
      const run = await runBounded(command, commandArgs, {
        cwd,
        env: this.environment(proxy?.url),
        timeoutMs: timeout,
        maxOutputBytes: this.limits.maxOutputBytes,
      });
      const stopped = run.stopped === 'timeout' && timeout < this.limits.renderTimeoutMs ? 'budget' : run.stopped;
      const attempts = [...(proxy?.attempts ?? []), ...(this.limits.allowNetwork ? [] : networkTargetsIn(run.stderr))];
      return { ...run, ...(stopped ? { stopped } : {}), networkAttempts: [...new Set(attempts)] };
    } finally {
      await proxy?.close();
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    rmSync(this.home, { recursive: true, force: true });
  }
}

/** How long the pipes may stay open after the tool exited and what it started was killed. */
const PIPE_GRACE_MS = 2_000;

interface BoundedOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
}

/** spawn in its own process group, so a timeout or an output flood ends the tool and whatever it started. */
function runBounded(command: string, args: readonly string[], options: BoundedOptions): Promise<ToolRun & { stopped?: 'timeout' | 'output' }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let bytes = 0;
    let stopped: 'timeout' | 'output' | undefined;
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      stopped ??= 'timeout';
      killGroup();
    }, options.timeoutMs);
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > options.maxOutputBytes) {
        if (stopped === undefined) {
          stopped = 'output';
          killGroup();
        }
        return;
      }
      into.push(chunk);
    };
    child.stdout.on('data', collect(stdout));
    child.stderr.on('data', collect(stderr));
    let settled = false;
    const finish = (result: ToolRun & { stopped?: 'timeout' | 'output' }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Whatever the tool left running (git, a plugin) ends with it.
      killGroup();
      resolve(result);
    };
    child.on('error', (error: NodeJS.ErrnoException) =>
      finish({ code: null, stdout: '', stderr: '', startError: error.code === 'ENOENT' ? 'not found' : (error.code ?? error.message) }),
    );
    // The result is taken once the tool has exited and both pipes are read to their end. Whatever it
    // left running (git, a plugin) is killed at its exit, so that a grandchild holding the pipes
    // open cannot keep the render waiting; the pipes then end, or are given up on after a grace period.
    let exitCode: number | null | undefined;
    let openPipes = 2;
    let grace: NodeJS.Timeout | undefined;
    const settle = () =>
      finish({
        code: stopped === undefined ? (exitCode ?? null) : null,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        ...(stopped ? { stopped } : {}),
      });
    const pipeEnded = () => {
      openPipes--;
      if (openPipes === 0 && exitCode !== undefined) {
        clearTimeout(grace);
        settle();
      }
    };
    child.stdout.on('end', pipeEnded);
    child.stderr.on('end', pipeEnded);
    child.on('exit', (code) => {
      exitCode = code;
      killGroup();
      if (openPipes === 0) settle();
      else grace = setTimeout(settle, PIPE_GRACE_MS);
    });
  });
}

/** URLs and hosts a tool's error names, when the error is about reaching the network. */
export function networkTargetsIn(stderr: string): string[] {
  if (
    !/proxyconnect|network is unreachable|no such host|could not resolve|dial tcp|transport '[a-z]+' not allowed|403 Forbidden|connection refused/i.test(stderr)
  )
    return [];
  const urls = stderr.match(/\b(?:https?|git|ssh|oci):\/\/[^\s"'`<>)]+/gi) ?? [];
  return [...new Set(urls.map((url) => trimTrailing(url, '.,:;')))];
}

/**
 * A proxy on loopback that answers every request with 403 and notes what was asked for: the
 * renderers' HTTP clients honour the proxy variables, so a fetch fails at once and the message can
 * name the URL. (Go's clients skip the proxy for loopback addresses; the network namespace, where
 * there is one, and the checks before a render cover those.)
 */
class RefusingProxy {
  private constructor(
    private readonly server: Server,
    private readonly sockets: Set<Socket>,
    readonly url: string,
    readonly attempts: readonly string[],
  ) {}

  static start(): Promise<RefusingProxy> {
    return new Promise((resolve, reject) => {
      const attempts: string[] = [];
      const sockets = new Set<Socket>();
      const server = createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.setTimeout(5_000, () => socket.destroy());
        let head = '';
        socket.on('data', (chunk: Buffer) => {
          head += chunk.toString('latin1');
          if (head.length > 16_384) socket.destroy();
          const line = /^([A-Z]+) (\S+) HTTP\/\d\.\d\r?\n/.exec(head);
          if (line === null || !head.includes('\r\n\r\n')) return;
          if (attempts.length < 100) attempts.push(line[1] === 'CONNECT' ? `https://${line[2]!.replace(/:443$/, '')}` : line[2]!);
          const body = 'probe-lint: the network is off while rendering (--allow-network turns it on)\n';
          socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
        });
        socket.on('error', () => socket.destroy());
      });
      server.unref();
      server.on('error', reject);
      server.listen(0, '127.0.0.1', () => {
        resolve(new RefusingProxy(server, sockets, `http://127.0.0.1:${(server.address() as { port: number }).port}`, attempts));
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      // Connections the tool left open end with it.
      for (const socket of this.sockets) socket.destroy();
      this.server.close(() => resolve());
    });
  }
}

/** Why a sandboxed render failed, in words that say what to do. */
/** What kind of input error a failed render is: a limit stopped it, it needed the network, or the tool refused the input. */
export function renderFailureKind(run: SandboxedRun): 'limit' | 'network' | 'render' {
  if (run.stopped !== undefined) return 'limit';
  return run.networkAttempts.length > 0 ? 'network' : 'render';
}

export function renderFailure(run: SandboxedRun, limits: SandboxLimits): string {
  if (run.stopped === 'timeout') return `stopped after ${limits.renderTimeoutMs / 1000} s (--render-timeout SECONDS sets the limit)`;
  if (run.stopped === 'budget') return `not rendered: the run's rendering budget of ${limits.runBudgetMs / 1000} s is spent (--render-budget SECONDS sets it)`;
  if (run.stopped === 'output') return `stopped: it printed more than ${limits.maxOutputBytes / 1024 / 1024} MiB`;
  if (run.networkAttempts.length > 0)
    return `it tried to reach ${run.networkAttempts.slice(0, 3).join(', ')}${run.networkAttempts.length > 3 ? ', …' : ''}: the network is off while rendering (--allow-network turns it on)`;
  // Paths as everywhere else: relative to the working directory.
  return toolMessage(run).replaceAll(`${process.cwd()}${sep}`, '');
}
