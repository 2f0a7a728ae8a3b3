import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Location, Log, ReportingDescriptor, Result } from 'sarif';
import { describeResource } from '../model/resource.js';
import type { Severity } from '../engine/rule.js';
import { readRuleDocs, ruleDocsUrl } from '../engine/rule-docs.js';
import { standaloneMessage } from './finding-text.js';
import { Fingerprints } from './fingerprint.js';
import { streamedJson, streamedList } from './json-stream.js';
import { failingInputErrors, renderedNote, type ReportInput } from './located.js';

const LEVELS: Record<Severity, Result.level> = { error: 'error', warning: 'warning', info: 'note' };

/** SARIF 2.1.0 for GitHub code scanning: rules with help, results with regions; in chunks, its results written as the findings go. */
export function sarifChunks(input: ReportInput): Generator<string> {
  const ruleIndex = new Map(input.rules.map((rule, index) => [rule.meta.id, index]));
  const rules: ReportingDescriptor[] = input.rules.map(({ meta }) => ({
    id: meta.id,
    name: pascalCase(meta.id),
    shortDescription: { text: sentence(`Flags ${meta.summary}`) },
    fullDescription: { text: sentence(`Flags ${meta.summary}`) },
    help: helpOf(meta.id, meta.summary),
    helpUri: ruleDocsUrl(meta.id),
    defaultConfiguration: { level: LEVELS[meta.severity] },
    properties: { tags: ['kubernetes', 'probes'] },
  }));
  const fingerprints = new Fingerprints();
  // With a baseline, its findings are results too, marked unchanged, and the rest new (code scanning shows the state).
  const baselined = new Set(input.baseline?.baselined ?? []);
  const all = input.baseline === undefined ? input.findings : [...input.findings, ...input.baseline.baselined];
  const results = streamedList(all, (finding): Result => {
    const result: Result = {
      ruleId: finding.rule,
      ruleIndex: ruleIndex.get(finding.rule) ?? -1,
      level: LEVELS[finding.severity],
      message: { text: sentence(`${standaloneMessage(finding)}${renderedNote(finding)}`) },
      // Code scanning keys alerts by these: one finding's own, however many findings share a line.
      partialFingerprints: { 'probeLintFinding/v1': fingerprints.of(finding) },
      ...(input.baseline !== undefined ? { baselineState: baselined.has(finding) ? ('unchanged' as const) : ('new' as const) } : {}),
    };
    // Every result has a location: the file the user edits when there is one, and always the object.
    const location: Location = { logicalLocations: [{ fullyQualifiedName: describeResource(finding.identity), kind: 'object' }] };
    if (finding.file !== undefined && finding.file !== '-') {
      location.physicalLocation = {
        artifactLocation: artifactLocation(finding.file),
        ...(finding.line !== undefined ? { region: { startLine: finding.line, startColumn: finding.column ?? 1 } } : {}),
      };
    }
    result.locations = [location];
    if (finding.rendered !== undefined) result.properties = { rendered: finding.rendered };
    return result;
  });
  const log: Log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'probe-lint',
            version: input.toolVersion,
            semanticVersion: input.toolVersion,
            informationUri: 'https://github.com/probe-lint/probe-lint',
            rules,
          },
        },
        originalUriBaseIds: { SRCROOT: { uri: pathToFileURL(process.cwd() + sep).href } },
        invocations: [
          {
            executionSuccessful: failingInputErrors(input.inputErrors).length === 0,
            toolExecutionNotifications: input.inputErrors.map((error) => ({
              level: error.severity ?? 'error',
              properties: { kind: error.kind },
              message: { text: sentence(error.message) },
              ...(error.file !== '-'
                ? {
                    locations: [
                      {
                        physicalLocation: {
                          artifactLocation: artifactLocation(error.file),
                          ...(error.line !== undefined ? { region: { startLine: error.line, startColumn: error.column ?? 1 } } : {}),
                        },
                      },
                    ],
                  }
                : {}),
            })),
          },
        ],
        results: results.placeholder as unknown as Result[],
      },
    ],
  };
  return streamedJson(log, [results]);
}

/** Paths under the working directory are relative to %SRCROOT% (what code scanning expects); others are absolute file URIs. */
function artifactLocation(file: string): { uri: string; uriBaseId?: string } {
  const absolute = resolve(file);
  const fromRoot = relative(process.cwd(), absolute);
  if (fromRoot.startsWith('..') || isAbsolute(fromRoot)) return { uri: pathToFileURL(absolute).href };
  return { uri: fromRoot.split(sep).map(encodeURIComponent).join('/'), uriBaseId: 'SRCROOT' };
}

function helpOf(id: string, summary: string): { text: string; markdown: string } {
  const docs = readRuleDocs(id);
  if (docs === undefined) return { text: sentence(`Flags ${summary}`), markdown: sentence(`Flags ${summary}`) };
  return { text: markdownToText(docs), markdown: docs.trim() };
}

/** Markdown as plain text: heading marks, emphasis and code fences go; what is inside code blocks (a YAML `# comment`) stays. */
function markdownToText(markdown: string): string {
  let inCode = false;
  const lines: string[] = [];
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) {
      inCode = !inCode;
      continue;
    }
    lines.push(inCode ? line : line.replace(/^#+\s*/, '').replace(/\*\*|`/g, ''));
  }
  return lines.join('\n').trim();
}

function pascalCase(id: string): string {
  return id.replace(/(^|-)([a-z])/g, (_, __, letter: string) => letter.toUpperCase());
}

/** SARIF messages are expected to be full sentences. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
