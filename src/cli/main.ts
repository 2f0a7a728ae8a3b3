// The CLI's entry: parses the command line and runs one command. No side effects at import and no
// process access: bin.ts wires the process in, and tests call main() directly.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArguments } from './arguments.js';
import { runLint } from './lint-command.js';
import type { CommandIo } from './context.js';
import { helpText, UsageError } from './options.js';
import { VERSION } from './version.js';
import { visible } from '../report/visible.js';

export type { CommandIo } from './context.js';

/** A run's outcome: its exit code. 0 clean, 1 findings at or above --fail-on, 2 usage/input/config errors or a crash. */
export async function main(argv: readonly string[], io: CommandIo): Promise<number> {
  let debug = argv.includes('--debug');
  try {
    const parsed = parseArguments(argv, (path) => existsSync(resolve(io.cwd, path)));
    debug = parsed.debug;
    const { args } = parsed;
    switch (args.command) {
      case 'help':
        io.stdout(helpText(args.helpFor));
        return 0;
      case 'version':
        io.stdout(`${VERSION}\n`);
        return 0;
      case 'rules':
        return (await import('./rules-command.js')).runRules(args, io);
      case 'explain':
        return (await import('./rules-command.js')).runExplain(args.rule, io);
      case 'lint':
        // The command a pre-commit hook runs, bundled with this entry: its code loads with it.
        return await runLint(args, io);
      case 'simulate':
        return await (await import('./simulate-command.js')).runSimulate(args, io);
      case 'timeline':
        return await (await import('./timeline-command.js')).runTimeline(args, io);
      case 'audit':
        // Cluster and server code (client-node, fastify) load only for the commands that use them:
        // a plain lint, as in a pre-commit hook, starts fast.
        return await (await import('./audit-command.js')).runAudit(args, io);
      case 'serve':
        return await (await import('./serve-command.js')).runServe(args, io);
      case 'policies':
        return await (await import('./policies-command.js')).runPolicies(args, io);
      case 'lsp':
        return await (await import('./lsp-command.js')).runLsp(args, io);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`probe-lint: ${visible(error.message)}\nRun \`probe-lint --help\` for the commands and options.\n`);
      return 2;
    }
    // A crash is exit 2 (1 means findings): one line, the stack only when asked for.
    const reason = error instanceof Error ? error.message : String(error);
    io.stderr(`probe-lint: internal error: ${visible(reason)}\n`);
    io.stderr(debug && error instanceof Error && error.stack ? `${error.stack}\n` : 'Run again with --debug to see where it happened, and please report it.\n');
    return 2;
  }
}
