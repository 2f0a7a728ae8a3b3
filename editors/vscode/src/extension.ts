// The VS Code client of `probe-lint lsp`: starts the server over stdio for YAML, JSON and Helm
// files, and tells it when a .probe-lint.yaml changes. Everything else is the server's.
import { workspace, type ExtensionContext } from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';

let client: LanguageClient | undefined;

export async function activate(context: ExtensionContext): Promise<void> {
  const settings = workspace.getConfiguration('probeLint');
  const command = settings.get<string>('path', 'probe-lint');
  const args = ['lsp', ...settings.get<string[]>('args', [])];
  const server: ServerOptions = { command, args, transport: TransportKind.stdio };
  const options: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'yaml' },
      { scheme: 'file', language: 'json' },
      { scheme: 'file', language: 'helm' },
      { scheme: 'untitled', language: 'yaml' },
    ],
    synchronize: { fileEvents: workspace.createFileSystemWatcher('**/.probe-lint.{yaml,yml}') },
  };
  client = new LanguageClient('probe-lint', 'probe-lint', server, options);
  context.subscriptions.push(client);
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
