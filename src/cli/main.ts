#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArguments, UsageError, USAGE } from './arguments.js';
import { runLint, type CommandIo } from './lint-command.js';
import { runExplain, runRules } from './rules-command.js';
import { VERSION } from './version.js';

export function main(argv: readonly string[], io: CommandIo): number {
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
        return runLint(args, io);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`probe-lint: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
}

process.exitCode = main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin: () => readFileSync(0, 'utf8'),
  isTty: process.stdout.isTTY === true,
});
