// One input file as the engine sees it: its documents, or why it cannot be linted. The CLI's lint
// and the language server read files the same way, so an editor shows what CI reports.
import type { LintDocument } from '../model/document.js';
import { lintDocumentsOf } from './parse/documents.js';
import type { InputFile, InputProblem } from './read/inputs.js';
import { SourceFile } from './parse/source-file.js';

export interface FileDocuments {
  source: SourceFile;
  documents: LintDocument[];
  /** A Go template outside a chart, or YAML that does not parse in a file that could hold objects. */
  problem?: InputProblem;
}

export function documentsOfFile(file: InputFile): FileDocuments {
  return documentsOfSource(file, new SourceFile(file.path, file.text));
}

/** The same for a file already parsed (`source` is `file`'s text): what --fix reads after each pass. */
export function documentsOfSource(file: Omit<InputFile, 'text'> & { text: string }, source: SourceFile): FileDocuments {
  const template = templateProblem(file, source);
  if (template !== undefined) return { source, documents: [], problem: { path: file.path, kind: 'template', message: template } };
  // A file that does not parse is an input error when it could hold a Kubernetes object; one found in
  // a directory that never names a kind (mkdocs.yml with Python tags, a CloudFormation template with
  // !Ref) is not a manifest at all, and is passed over like any other document that is not an object.
  // A file the user named, like stdin, was meant to be linted: its bytes are an error either way.
  const problem =
    source.error && (file.rendered !== undefined || file.path === '-' || file.named === true || mayHoldObjects(file.text))
      ? { path: file.path, line: source.error.line, column: source.error.column, kind: 'yaml' as const, message: `invalid YAML: ${source.error.reason}` }
      : undefined;
  return { source, documents: lintDocumentsOf(source, file.rendered), ...(problem !== undefined ? { problem } : {}) };
}

/** Whether the text names a kind anywhere (`kind:` as a key, or `"kind"` in JSON): what every Kubernetes object has. */
function mayHoldObjects(text: string): boolean {
  return /^[ \t-]*["']?kind["']?[ \t]*:/m.test(text) || /"kind"\s*:/.test(text);
}

/** Go template actions as charts write them: `{{ .Values.x }}`, `{{- include … }}`, `{{ if … }}`, `{{ $var }}`. */
const TEMPLATE_ACTION = /\{\{-?\s*(?:\.[A-Za-z]|\$|(?:include|template|if|else|range|with|end|define|toYaml|tpl|required|default)\b)/;

/** A mapping used as a key: YAML allows it, Kubernetes never has one; js-yaml names it "[object Object]". */
function hasMappingKey(value: unknown, visited = new Set<object>()): boolean {
  // Each node once: YAML aliases share nodes, and walking them as trees is exponential.
  if (value === null || typeof value !== 'object' || visited.has(value)) return false;
  visited.add(value);
  if (Array.isArray(value)) return value.some((item) => hasMappingKey(item, visited));
  return Object.entries(value).some(([key, child]) => key === '[object Object]' || hasMappingKey(child, visited));
}

/**
 * A file outside any chart that holds Go template actions and does not read as YAML: a template,
 * said so plainly. It may even parse — `name: {{ .Release.Name }}` is a flow mapping used as a key —
 * so a document with such a key counts too. (Template text inside strings, as Prometheus rules
 * have, is YAML like any other and is linted.)
 */
export function templateProblem(file: InputFile, source: SourceFile): string | undefined {
  if (file.rendered !== undefined || !file.text.includes('{{') || !TEMPLATE_ACTION.test(file.text)) return undefined;
  if (source.error === undefined && !source.documents.some((document) => hasMappingKey(document.value))) return undefined;
  return 'looks like a Go template ({{ … }}), not YAML: lint the chart it belongs to (the directory with Chart.yaml), or render it first (helm template CHART | probe-lint -)';
}
