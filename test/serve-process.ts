// `probe-lint serve` as a process, on a free port chosen by the kernel (--port 0).
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './helpers.js';

export interface ServeProcess {
  child: ChildProcess;
  port: number;
  host: string;
  /** The plain-HTTP health port, when started with --health-port. */
  healthPort: number | undefined;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  exited: Promise<number | null>;
}

/** Starts `probe-lint serve ARGS --port 0` and waits for its "listening" line, which names the port. */
export async function startServe(args: string[], options: { env?: Record<string, string>; cli?: string; port?: number } = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [options.cli ?? CLI, 'serve', '--port', String(options.port ?? 0), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  for (let attempt = 0; attempt < 200; attempt++) {
    const line = output.split('\n').find((candidate) => candidate.includes('probe-lint webhook listening'));
    if (line !== undefined) {
      const { port, host, healthPort } = JSON.parse(line) as { port: number; host: string; healthPort?: number };
      return { child, port, host, healthPort, output: () => output, exited };
    }
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`probe-lint serve did not start:\n${output}`);
}
