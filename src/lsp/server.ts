// `probe-lint lsp`: the language server. Plain manifests are linted as they are typed (debounced);
// a file a chart or kustomization owns is linted through it when opened and saved. Everything runs
// on the engine and config discovery the CLI uses, so an editor shows what CI will report.
import { readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CodeActionKind,
  createConnection,
  ErrorCodes,
  ResponseError,
  type ResponseMessage,
  LSPErrorCodes,
  Message,
  type ConnectionStrategy,
  StreamMessageReader,
  StreamMessageWriter,
  TextDocuments,
  TextDocumentSyncKind,
  type Connection,
  type Diagnostic,
  type Range,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { CONFIG_FILE_NAMES } from '../engine/config.js';
import type { AnyRule } from '../engine/rule.js';
import { compareLocated } from '../report/located.js';
import { MAX_INPUT_BYTES } from '../source/read/inputs.js';
import type { RenderOptions } from '../source/read-inputs.js';
import { codeActions, FIX_ALL_KIND } from './code-actions.js';
import { ignoreCompletions } from './completion.js';
import { findingDiagnostic, problemDiagnostic } from './diagnostics.js';
import { FrameGuard } from './frame-guard.js';
import { Sessions } from './sessions.js';
import { probeHover } from './hover.js';
import { probeAt } from './probe-at.js';

/** A request cancelled while it waits in the queue is answered at once, never computed (the library's default computes it). */
const CANCEL_QUEUED: ConnectionStrategy = {
  cancelUndispatched: (message) =>
    Message.isRequest(message)
      ? { jsonrpc: '2.0', id: message.id, error: { code: LSPErrorCodes.RequestCancelled, message: 'cancelled before it was handled' } }
      : undefined,
};

/** A keystroke waits this long for the next before the file is linted again. */
export const DEBOUNCE_MS = 150;

export interface LanguageServerOptions {
  rules: readonly AnyRule[];
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  env: Readonly<Record<string, string | undefined>>;
  render: RenderOptions;
  /** --config: one config for every file instead of the nearest one. */
  configFile: string | undefined;
}

export function startLanguageServer(options: LanguageServerOptions): Connection {
  const writer = new StreamMessageWriter(options.output);
  // Frames are checked before the library reads them; a bad one is answered as JSON-RPC says (a parse
  // error, id null), through the same writer so that it never lands inside another message.
  const frames = new FrameGuard(MAX_INPUT_BYTES * 2, (reason) => {
    void writer.write({
      jsonrpc: '2.0',
      id: null,
      error: { code: ErrorCodes.ParseError, message: `probe-lint dropped a malformed frame: ${reason}` },
    } as ResponseMessage);
  });
  const connection = createConnection(new StreamMessageReader(options.input.pipe(frames)), writer, CANCEL_QUEUED);
  const documents = new TextDocuments(TextDocument);
  const sessions = new Sessions(options.rules, options.configFile, options.render, options.env);
  const server = new ProbeLintServer(connection, documents, sessions, options);

  connection.onInitialize(() => ({
    capabilities: {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND] },
      hoverProvider: true,
      completionProvider: { triggerCharacters: [':', ',', ' ', '"', "'"] },
    },
    serverInfo: { name: 'probe-lint' },
  }));
  documents.onDidOpen(({ document }) => server.opened(document));
  documents.onDidChangeContent(({ document }) => server.changed(document));
  documents.onDidSave(({ document }) => server.saved(document));
  documents.onDidClose(({ document }) => server.closed(document));
  // An editor sends a notification per file a branch switch touches (hundreds): one re-lint for the lot.
  connection.onDidChangeWatchedFiles(() => server.lintAllSoon());
  // After `shutdown` a request is an error (LSP: InvalidRequest), not an answer.
  let shutDown = false;
  connection.onShutdown(() => {
    shutDown = true;
    server.stop();
  });
  const running = <T>(answer: () => T): T | ResponseError =>
    shutDown ? new ResponseError(ErrorCodes.InvalidRequest, 'the server is shut down: only exit is expected') : answer();
  connection.onCodeAction((params, token) =>
    running(() => (token.isCancellationRequested ? [] : server.codeActions(params.textDocument.uri, params.range, params.context))),
  );
  connection.onHover((params, token) => running(() => (token.isCancellationRequested ? null : server.hover(params.textDocument.uri, params.position))));
  connection.onCompletion((params, token) =>
    running(() => (token.isCancellationRequested ? [] : server.completions(params.textDocument.uri, params.position))),
  );
  documents.listen(connection);
  connection.listen();
  return connection;
}

type Kind = { plain: true } | { plain: false; units: string[] } | { refused: string };

class ProbeLintServer {
  private readonly kinds = new Map<string, Kind>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly plainDiagnostics = new Map<string, Diagnostic[]>();
  /** By chart or kustomization: the diagnostics of its last rendering, by file. */
  private readonly unitDiagnostics = new Map<string, Map<string, Diagnostic[]>>();
  /** By chart or kustomization: the rendering in flight; an older one's result is dropped. */
  private readonly unitGeneration = new Map<string, number>();

  constructor(
    private readonly connection: Connection,
    private readonly documents: TextDocuments<TextDocument>,
    private readonly sessions: Sessions,
    private readonly options: LanguageServerOptions,
  ) {}

  opened(document: TextDocument): void {
    const kind = this.classify(document);
    if ('refused' in kind) this.connection.console.warn(`probe-lint: ${document.uri} is not linted: ${kind.refused}`);
    else if (!kind.plain && !kind.units.some((unit) => this.unitDiagnostics.has(unit))) void this.renderUnits(document.uri);
  }

  changed(document: TextDocument): void {
    const kind = this.kinds.get(document.uri) ?? this.classify(document);
    if (!('plain' in kind) || !kind.plain) return; // rendered again on save, or refused
    clearTimeout(this.timers.get(document.uri));
    this.timers.set(
      document.uri,
      setTimeout(() => {
        this.timers.delete(document.uri);
        this.guarded(() => this.lintPlain(document.uri));
      }, DEBOUNCE_MS),
    );
  }

  saved(document: TextDocument): void {
    if ((CONFIG_FILE_NAMES as readonly string[]).includes(basename(pathOf(document.uri)))) {
      this.lintAll();
      return;
    }
    const kind = this.classify(document);
    if ('plain' in kind && !kind.plain) void this.renderUnits(document.uri);
  }

  closed(document: TextDocument): void {
    clearTimeout(this.timers.get(document.uri));
    this.timers.delete(document.uri);
    this.kinds.delete(document.uri);
    if (this.plainDiagnostics.delete(document.uri)) this.publish(document.uri);
  }

  private lintAllTimer: NodeJS.Timeout | undefined;

  /** Files changed on disk: every open file again, once the notifications stop coming for DEBOUNCE_MS. */
  lintAllSoon(): void {
    clearTimeout(this.lintAllTimer);
    this.lintAllTimer = setTimeout(() => {
      this.lintAllTimer = undefined;
      this.lintAll();
    }, DEBOUNCE_MS);
  }

  /** Shut down: nothing scheduled runs any more. */
  stop(): void {
    clearTimeout(this.lintAllTimer);
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /** The config changed: every open file again. */
  lintAll(): void {
    for (const document of this.documents.all()) {
      const kind = this.classify(document);
      if (!('plain' in kind)) continue;
      if (kind.plain) this.guarded(() => this.lintPlain(document.uri));
      else void this.renderUnits(document.uri);
    }
  }

  codeActions(uri: string, range: Range, context: { diagnostics: Diagnostic[]; only?: string[] }) {
    const document = this.documents.get(uri);
    const kind = this.kinds.get(uri);
    if (document === undefined || (kind !== undefined && !('plain' in kind && kind.plain))) return [];
    return this.guarded(() => {
      const path = pathOf(uri);
      const found = this.sessions.forPath(path);
      if ('problem' in found) return [];
      const lint = found.session.lintText(path, document.getText());
      const findings = lint.findings.flatMap((finding) => {
        const diagnostic = findingDiagnostic(finding, lineOf(document));
        if (!intersects(diagnostic.range, range)) return [];
        // The client's own diagnostic when it sent one for this finding, so the editor links the two.
        const sent = context.diagnostics.find((candidate) => candidate.code === diagnostic.code && sameRange(candidate.range, diagnostic.range));
        return [{ finding, diagnostic: sent ?? diagnostic }];
      });
      return codeActions({ document, path, session: found.session, config: found.config, findings, only: context.only });
    }, []);
  }

  hover(uri: string, position: { line: number; character: number }) {
    const document = this.documents.get(uri);
    if (document === undefined) return null;
    return this.guarded(() => {
      const path = pathOf(uri);
      const session = this.sessions.forPath(path);
      if ('problem' in session) return null;
      const text = document.getText();
      const lint = session.session.lintText(path, text);
      const found = probeAt(text, lint.documents, document.offsetAt(position));
      return found === undefined ? null : { contents: probeHover(found) };
    }, null);
  }

  completions(uri: string, position: { line: number; character: number }) {
    const document = this.documents.get(uri);
    if (document === undefined) return [];
    const before = document.getText({ start: { line: position.line, character: 0 }, end: position });
    return ignoreCompletions(this.options.rules, before, position.line);
  }

  private classify(document: TextDocument): Kind {
    const path = pathOf(document.uri);
    // A file: URI is linted only when it names a regular file: a directory's would render every chart below it.
    const notAFile = document.uri.startsWith('file:') ? notRegularFile(path) : undefined;
    if (notAFile !== undefined) {
      const refused: Kind = { refused: `probe-lint lints files, and ${notAFile}` };
      this.kinds.set(document.uri, refused);
      return refused;
    }
    const found = this.sessions.forPath(path);
    const units = document.uri.startsWith('file:') && 'session' in found ? this.guarded(() => found.session.ownersOf(path), []) : [];
    const kind: Kind = units.length === 0 ? { plain: true } : { plain: false, units };
    this.kinds.set(document.uri, kind);
    return kind;
  }

  private lintPlain(uri: string): void {
    const document = this.documents.get(uri);
    if (document === undefined) return;
    const path = pathOf(uri);
    const found = this.sessions.forPath(path);
    const lines = lineOf(document);
    let diagnostics: Diagnostic[];
    if ('problem' in found) diagnostics = [problemDiagnostic(`${found.configFile}: ${found.problem}`, undefined, undefined, lines)];
    else if (found.exclusion.excludedBy(path) !== undefined)
      diagnostics = []; // the config's exclude: as the CLI, nothing
    else {
      const lint = found.session.lintText(path, document.getText());
      diagnostics = [
        ...lint.problems.map((problem) => problemDiagnostic(problem.message, problem.line, problem.column, lines)),
        ...lint.findings.sort(compareLocated).map((finding) => findingDiagnostic(finding, lines)),
      ];
    }
    this.plainDiagnostics.set(uri, diagnostics);
    this.publish(uri, document.version);
  }

  /** Renders what owns the file, and publishes the findings on every file they point at. */
  private async renderUnits(uri: string): Promise<void> {
    const kind = this.kinds.get(uri);
    if (kind === undefined || !('plain' in kind) || kind.plain) return;
    const key = kind.units.join('\n');
    const generation = (this.unitGeneration.get(key) ?? 0) + 1;
    this.unitGeneration.set(key, generation);
    const path = pathOf(uri);
    const byUri = new Map<string, Diagnostic[]>();
    const add = (file: string, diagnostic: Diagnostic) => {
      const target = pathToFileURL(file).href;
      (byUri.get(target) ?? byUri.set(target, []).get(target)!).push(diagnostic);
    };
    try {
      const found = this.sessions.forPath(path);
      if ('problem' in found)
        add(
          path,
          problemDiagnostic(`${found.configFile}: ${found.problem}`, undefined, undefined, () => ''),
        );
      else {
        const result = await found.session.lintOwnerOf(path);
        if (this.unitGeneration.get(key) !== generation) return; // a newer save renders it again
        for (const notice of result.notices) this.connection.console.info(notice);
        for (const [file, findings] of result.findings) {
          const lines = this.linesOfFile(file);
          for (const finding of findings.sort(compareLocated)) add(file, findingDiagnostic(finding, lines));
        }
        for (const problem of result.problems) {
          // A problem with a file of its own goes there; one about a chart or a kustomization, on the file saved.
          const onFile = isFile(problem.path);
          add(
            onFile ? problem.path : path,
            problemDiagnostic(
              onFile ? problem.message : `${problem.path}: ${problem.message}`,
              problem.line,
              problem.column,
              this.linesOfFile(onFile ? problem.path : path),
            ),
          );
        }
      }
    } catch (error) {
      this.connection.console.error(`probe-lint: cannot lint ${path} through its chart or kustomization: ${(error as Error).message}`);
      return;
    }
    if (this.unitGeneration.get(key) !== generation) return;
    const before = this.unitDiagnostics.get(key);
    this.unitDiagnostics.set(key, byUri);
    for (const target of new Set([...(before?.keys() ?? []), ...byUri.keys()])) this.publish(target);
  }

  private publish(uri: string, version?: number): void {
    const diagnostics = [...(this.plainDiagnostics.get(uri) ?? [])];
    for (const unit of this.unitDiagnostics.values()) diagnostics.push(...(unit.get(uri) ?? []));
    void this.connection.sendDiagnostics({ uri, diagnostics, ...(version !== undefined ? { version } : {}) });
  }

  /** Lines of a file a rendering pointed at: the editor's text when it is open, else the file's. */
  private linesOfFile(file: string): (line: number) => string {
    const open = this.documents.get(pathToFileURL(file).href);
    if (open !== undefined) return lineOf(open);
    let lines: string[] = [];
    try {
      if (statSync(file).size <= MAX_INPUT_BYTES) lines = readFileSync(file, 'utf8').split(/\r\n|\r|\n/);
    } catch {
      // A file gone since the rendering: ranges start at its positions.
    }
    return (line) => lines[line] ?? '';
  }

  /** A handler's work, never a crash: what went wrong is logged to the client. */
  private guarded<T>(work: () => T, fallback?: T): T {
    try {
      return work();
    } catch (error) {
      this.connection.console.error(`probe-lint: ${(error as Error).stack ?? String(error)}`);
      return fallback as T;
    }
  }
}

function pathOf(uri: string): string {
  return uri.startsWith('file:') ? fileURLToPath(uri) : resolve(basename(uri));
}

function lineOf(document: TextDocument): (line: number) => string {
  return (line) => document.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } });
}

/** Why a path that exists is no regular file (a directory, a FIFO…); undefined for a file, or for one not saved yet. */
function notRegularFile(path: string): string | undefined {
  try {
    const stats = statSync(path);
    if (stats.isFile()) return undefined;
    return stats.isDirectory() ? 'this is a directory' : 'this is not a regular file';
  } catch {
    return undefined;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function intersects(a: Range, b: Range): boolean {
  return !(before(a.end, b.start) || before(b.end, a.start));
}

function before(a: { line: number; character: number }, b: { line: number; character: number }): boolean {
  return a.line < b.line || (a.line === b.line && a.character < b.character);
}

function sameRange(a: Range, b: Range): boolean {
  return a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line && a.end.character === b.end.character;
}
