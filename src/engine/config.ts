import { readFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import AjvModule, { type ErrorObject } from 'ajv';
import { LineCounter, parseDocument, isMap, isNode, isScalar, type Document } from 'yaml';
import { DEFAULT_DENSE_PODS_PER_NODE, type ClusterFacts } from './cluster-facts.js';
import type { Severity } from './rule.js';

export const CONFIG_FILE_NAME = '.probe-lint.yaml';

export type RuleSetting = 'off' | Severity | { enabled?: boolean; severity?: Severity; options?: Record<string, unknown> };

export interface IgnoreEntry {
  kind?: string;
  namespace?: string;
  name?: string;
  container?: string;
  rules?: string[];
  reason: string;
  /** YYYY-MM-DD */
  expires?: string;
}

export type WebhookMode = 'enforce' | 'warn' | 'off';

export interface WebhookConfig {
  mode?: WebhookMode;
  injectStartupProbe?: boolean;
  mutateTemplates?: boolean;
  fixAtAdmission?: string[];
  namespaces?: Record<string, { mode?: WebhookMode; injectStartupProbe?: boolean }>;
}

export interface ProbeLintConfig {
  rules?: Record<string, RuleSetting>;
  cluster?: {
    podsPerNode?: number;
    densePodsPerNode?: number;
    denseCapacityFraction?: number;
    refreshIntervalSeconds?: number;
    guard?: { deadlineSeconds?: number; backoffInitialSeconds?: number; backoffMaxSeconds?: number; failureThreshold?: number; openSeconds?: number };
  };
  ignore?: IgnoreEntry[];
  webhook?: WebhookConfig;
}

/** A config file that cannot be used: the message names the file, line and key. */
export class ConfigError extends Error {}

const schemaPath = join(dirname(fileURLToPath(import.meta.url)), '../../../schema/config.schema.json');
export const CONFIG_SCHEMA = JSON.parse(readFileSync(schemaPath, 'utf8')) as Record<string, unknown>;

const Ajv = AjvModule.default ?? AjvModule;
const validateConfig = new Ajv({ allErrors: true, strict: true, strictTypes: false }).compile<ProbeLintConfig>(CONFIG_SCHEMA);

/** `.probe-lint.yaml` in `start` or the nearest directory above it. */
export function findConfigFile(start: string): string | undefined {
  let directory = resolve(start);
  for (;;) {
    const candidate = join(directory, CONFIG_FILE_NAME);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
}

export function loadConfigFile(file: string): ProbeLintConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${file}: cannot read the config file: ${(error as Error).message}`);
  }
  return parseConfig(text, file);
}

export function parseConfig(text: string, file: string): ProbeLintConfig {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true });
  if (document.errors.length > 0) {
    const error = document.errors[0]!;
    const [line, column] = error.linePos?.[0] ? [error.linePos[0].line, error.linePos[0].col] : [1, 1];
    throw new ConfigError(`${file}:${line}:${column}: invalid YAML: ${error.message.split('\n')[0]}`);
  }
  const config = (document.toJS() ?? {}) as unknown;
  if (!validateConfig(config)) {
    const messages = relevantErrors(validateConfig.errors ?? []).map((error) => {
      const path = pathOf(error);
      const offset = error.keyword === 'additionalProperties' ? keyOffset(document, path) : valueOffset(document, path);
      const where = offset === undefined ? undefined : lineCounter.linePos(offset);
      const location = where ? `${file}:${where.line}:${where.col}` : file;
      return `${location}: ${describeError(error, path)}`;
    });
    throw new ConfigError(messages.join('\n'));
  }
  return config;
}

/** Effective cluster density threshold from config. */
export function densePodsPerNode(config: ProbeLintConfig): number {
  return config.cluster?.densePodsPerNode ?? DEFAULT_DENSE_PODS_PER_NODE;
}

/** Cluster facts without a live cluster: a --pods-per-node flag, else the config, else unknown. */
export function clusterFactsFrom(config: ProbeLintConfig, podsPerNodeFlag: number | undefined): ClusterFacts {
  const dense = densePodsPerNode(config);
  if (podsPerNodeFlag !== undefined) return { podsPerNode: podsPerNodeFlag, densePodsPerNode: dense, source: 'flag' };
  if (config.cluster?.podsPerNode !== undefined) return { podsPerNode: config.cluster.podsPerNode, densePodsPerNode: dense, source: 'config' };
  return { podsPerNode: undefined, densePodsPerNode: dense, source: 'unknown' };
}

function valueOffset(document: Document, path: (string | number)[]): number | undefined {
  const node = document.getIn(path, true);
  return isNode(node) && node.range ? node.range[0] : undefined;
}

/** Where the key itself is written, for "unknown key" errors. */
function keyOffset(document: Document, path: (string | number)[]): number | undefined {
  const parent = path.length > 1 ? document.getIn(path.slice(0, -1), true) : document.contents;
  if (!isMap(parent)) return valueOffset(document, path);
  const pair = parent.items.find((item) => isScalar(item.key) && String(item.key.value) === String(path[path.length - 1]));
  return isScalar(pair?.key) ? pair.key.range?.[0] : undefined;
}

function pathOf(error: ErrorObject): (string | number)[] {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
  if (error.keyword === 'additionalProperties') path.push(String(error.params.additionalProperty));
  return path;
}

/** oneOf produces an error per branch; keep the one that says most. */
function relevantErrors(errors: ErrorObject[]): ErrorObject[] {
  const specific = errors.filter((error) => error.keyword !== 'oneOf' && error.keyword !== 'allOf');
  const byPath = new Map<string, ErrorObject[]>();
  for (const error of specific) {
    const key = pathOf(error).join('.');
    byPath.set(key, [...(byPath.get(key) ?? []), error]);
  }
  return [...byPath.values()].map((group) => {
    // For a rule setting given as an object, the "must be one of off/error/…" branch is noise.
    const withoutEnum = group.filter((error) => error.keyword !== 'enum' && error.keyword !== 'type');
    return withoutEnum[0] ?? group.find((error) => error.keyword === 'enum') ?? group[0]!;
  });
}

function describeError(error: ErrorObject, path: (string | number)[]): string {
  const key = path.join('.') || '(top level)';
  switch (error.keyword) {
    case 'additionalProperties':
      if (path[0] === 'rules' && path.length === 2) return `${key}: unknown rule "${path[1]}"; run \`probe-lint rules\` for the list`;
      return `${key}: unknown key; allowed here: ${allowedKeys(path.slice(0, -1)).join(', ')}`;
    case 'enum':
      return `${key}: must be one of ${(error.params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
    default:
      return `${key}: ${error.message}`;
  }
}

function allowedKeys(path: (string | number)[]): string[] {
  let schema: any = CONFIG_SCHEMA;
  for (const segment of path) {
    if (typeof segment === 'number') schema = schema?.items;
    else schema = schema?.properties?.[segment] ?? schema?.allOf?.[1]?.properties?.[segment];
  }
  return Object.keys(schema?.properties ?? {});
}
