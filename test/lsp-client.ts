// A Language Server Protocol client for the tests: starts `probe-lint lsp` as an editor would (its
// own process, JSON-RPC over stdio) and keeps what the server publishes.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import {
  createMessageConnection,
  type CodeAction,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type MessageConnection,
  type PublishDiagnosticsParams,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { CLI, eventually } from './helpers.js';

export class LspClient {
  readonly published: PublishDiagnosticsParams[] = [];
  readonly logs: string[] = [];
  private readonly versions = new Map<string, number>();
  private readonly texts = new Map<string, string>();

  private constructor(
    readonly child: ChildProcess,
    readonly connection: MessageConnection,
  ) {
    connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
      this.published.push(params);
    });
    connection.onNotification('window/logMessage', (params: { message: string }) => {
      this.logs.push(params.message);
    });
  }

  static async start(args: string[] = [], options: { cwd?: string } = {}): Promise<LspClient> {
    const child = spawn(process.execPath, [CLI, 'lsp', '--stdio', ...args], { stdio: ['pipe', 'pipe', 'pipe'], cwd: options.cwd });
    const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const client = new LspClient(child, connection);
    child.stderr.on('data', (chunk: Buffer) => client.logs.push(chunk.toString()));
    connection.listen();
    await connection.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {} });
    await connection.sendNotification('initialized', {});
    return client;
  }

  async open(path: string, text = readFileSync(path, 'utf8')): Promise<string> {
    const uri = pathToFileURL(path).href;
    this.versions.set(uri, 1);
    this.texts.set(uri, text);
    await this.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: path.endsWith('.json') ? 'json' : 'yaml', version: 1, text },
    });
    return uri;
  }

  /** Replaces the whole text (a full-content change); returns the new version. */
  async change(uri: string, text: string): Promise<number> {
    const version = (this.versions.get(uri) ?? 0) + 1;
    this.versions.set(uri, version);
    this.texts.set(uri, text);
    await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
    return version;
  }

  async save(uri: string): Promise<void> {
    await this.connection.sendNotification('textDocument/didSave', { textDocument: { uri } });
  }

  text(uri: string): string {
    return this.texts.get(uri)!;
  }

  /** The diagnostics last published for the document's current version (waits for them). */
  async diagnostics(uri: string, version = this.versions.get(uri)): Promise<Diagnostic[]> {
    const found = await eventually(
      `diagnostics for ${uri} version ${version}`,
      () => last(this.published, (params) => params.uri === uri && (version === undefined || params.version === version)),
      30_000,
      20,
    );
    return found.diagnostics;
  }

  /** The last diagnostics published for a file after `since` publications, unversioned (a rendering's). */
  async renderedDiagnostics(uri: string, since: number): Promise<Diagnostic[]> {
    const found = await eventually('diagnostics from a rendering', () => last(this.published.slice(since), (params) => params.uri === uri), 60_000, 50);
    return found.diagnostics;
  }

  /** The code actions for one diagnostic the server published, asked for at its range. */
  codeActionsFor(uri: string, diagnostic: Diagnostic): Promise<CodeAction[]> {
    return this.request('textDocument/codeAction', { textDocument: { uri }, range: diagnostic.range, context: { diagnostics: [diagnostic] } });
  }

  request<T>(method: string, params: unknown): Promise<T> {
    return this.connection.sendRequest(method, params);
  }

  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', (code) => resolve(code)));
    await this.connection.sendRequest('shutdown');
    await this.connection.sendNotification('exit');
    const code = await exited;
    this.connection.dispose();
    return code;
  }
}

/** The text after a workspace edit's changes to one document. */
export function applyWorkspaceEdit(text: string, uri: string, edit: WorkspaceEdit): string {
  const edits: TextEdit[] = edit.changes?.[uri] ?? [];
  return TextDocument.applyEdits(TextDocument.create(uri, 'yaml', 1, text), edits);
}

function last<T>(items: readonly T[], match: (item: T) => boolean): T | undefined {
  for (let index = items.length - 1; index >= 0; index--) if (match(items[index]!)) return items[index];
  return undefined;
}
