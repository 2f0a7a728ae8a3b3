#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArguments, UsageError, USAGE } from './arguments.js';
import { runLint, type CommandIo } from './lint-command.js';
import { runExplain, runRules } from './rules-command.js';
import { VERSION } from './version.js';

export async function main(argv: readonly string[], io: CommandIo): Promise<number> {
  try {
    const args = parseArguments(argv);
    switch (args.command) {
      case 'help':
        io.stdout(USAGE);
        return 0;
      case 'version':
        io.stdout(`${VERSION}\n`);
        return 0;
      case 'rules':
        return runRules(io);
      case 'explain':
        return runExplain(args.rule, io);
      case 'lint':
        return await runLint(args, io);
      case 'audit':
        // Cluster and server code (client-node, fastify) load only for the commands that use them:
        // a plain lint, as in a pre-commit hook, starts fast.
        return await (await import('./audit-command.js')).runAudit(args, io);
      case 'serve':
        return await (await import('./serve-command.js')).runServe(args, io);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`probe-lint: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
}

const argv = process.argv.slice(2);
const code = await main(argv, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin: () => readFileSync(0, 'utf8'),
  isTty: process.stdout.isTTY === true,
});
process.exitCode = code;
// The server's timers and sockets are closed, but a metrics collector may still hold the loop.
if (argv[0] === 'serve') process.exit(code);
