#!/usr/bin/env node
// The `probe-lint` executable: connects main() to this process.
import { readFileSync } from 'node:fs';
import module from 'node:module';
import { ownCacheDirectory } from '../source/cache-directory.js';
import type { main as Main } from './main.js';
import { ProcessOutput } from './process-output.js';

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

const output = new ProcessOutput();

const argv = process.argv.slice(2);
const code = await main(argv, {
  stdout: (text) => output.writeStdout(text),
  // A long report waits for a slow reader, not in memory (when stdout is a stream).
  stdoutWritten: () => output.stdoutWritten(),
  stderr: (text) => output.writeStderr(text),
  readStdin: () => readFileSync(0),
  isTty: output.stdoutIsTerminal,
  ...(output.stderrIsTerminal ? { errorTerminal: output.stderr() } : {}),
  ...(output.stdoutIsTerminal && output.stdout().columns ? { columns: output.stdout().columns } : {}),
  env: process.env,
  cwd: process.cwd(),
  streams: () => ({ input: process.stdin, output: output.stdout() }),
});
process.exitCode = code;
// The server's timers and sockets are closed, but a metrics collector may still hold the loop.
if (argv[0] === 'serve') process.exit(code);
