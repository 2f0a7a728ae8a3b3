// `probe-lint lsp`: the language server over stdin and stdout. It runs until the client ends it
// (the protocol's exit notification, or the client process going away).
import { resolve } from 'node:path';
import { RULES } from '../../rules/index.js';
import type { LspArguments } from './arguments.js';
import type { CommandIo } from './context.js';

export async function runLsp(args: LspArguments, io: CommandIo): Promise<number> {
  if (io.streams === undefined) {
    io.stderr('probe-lint: lsp needs the process streams (run it as `probe-lint lsp`)\n');
    return 2;
  }
  const { startLanguageServer } = await import('../lsp/server.js');
  const { input, output } = io.streams();
  const connection = startLanguageServer({
    rules: RULES,
    input,
    output,
    env: io.env,
    render: args.render,
    configFile: args.config === undefined ? undefined : resolve(io.cwd, args.config),
  });
  // The server library ends the process on the exit notification; a client that goes away closes
  // stdin instead, which ends the server too, cleanly.
  await new Promise<void>((done) => {
    connection.onExit(done);
    input.once('end', done).once('close', done);
  });
  return 0;
}
