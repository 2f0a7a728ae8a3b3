#!/usr/bin/env node
// The `probe-lint` executable: connects main() to this process.
import { readFileSync } from 'node:fs';
import module from 'node:module';
import { ownCacheDirectory } from '../source/cache-directory.js';
import type { main as Main } from './main.js';

// V8's compiled code is kept on disk between runs (a pre-commit hook starts often): in the user's own
// cache directory, not Node's default under the shared temporary directory, where another user could
// plant code for V8 to load. A NODE_COMPILE_CACHE the user set is Node's to honour.
const compileCache = process.env.NODE_COMPILE_CACHE ? undefined : ownCacheDirectory('compile', process.env);
// Node 22.0 has no compile cache.
if (process.env.NODE_COMPILE_CACHE || compileCache !== undefined)
  (module as { enableCompileCache?: (directory?: string) => unknown }).enableCompileCache?.(compileCache);
// main as the build bundled it (rollup.config.mjs): a few modules to load, not about 95.
const bundledMain = '../bundle/main.js';
const { main } = (await import(bundledMain)) as { main: typeof Main };

let stdoutClosed = false;
// A reader that stops early (`probe-lint … | head -1`) closes the pipe: the run ends quietly, as
// grep's does, with its own exit code.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  stdoutClosed = true;
});
process.stderr.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

/** Settles when the stream has written what it holds, or can write no more (the reader went away). */
function taken(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done).off('close', done).off('error', done);
      resolve();
    };
    stream.on('drain', done).on('close', done).on('error', done);
  });
}

const argv = process.argv.slice(2);
const code = await main(argv, {
  stdout: (text) => {
    if (!stdoutClosed) process.stdout.write(text);
  },
  // A pipe takes what it can and Node keeps the rest in memory: a long report waits for the reader.
  stdoutWritten: () => (stdoutClosed || !process.stdout.writableNeedDrain ? Promise.resolve() : taken(process.stdout)),
  stderr: (text) => {
    if (!process.stderr.destroyed) process.stderr.write(text);
  },
  readStdin: () => readFileSync(0),
  isTty: process.stdout.isTTY === true,
  ...(process.stderr.isTTY === true ? { errorTerminal: process.stderr } : {}),
  ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
  env: process.env,
  cwd: process.cwd(),
  streams: () => ({ input: process.stdin, output: process.stdout }),
});
process.exitCode = code;
// The server's timers and sockets are closed, but a metrics collector may still hold the loop.
if (argv[0] === 'serve') process.exit(code);
