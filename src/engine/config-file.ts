// Reading and validating a config file: YAML with positions (the yaml package) and the JSON
// schema (ajv). Loaded only when there is a config file, so a plain lint starts without either.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import AjvModule, { type ErrorObject, type ValidateFunction } from 'ajv';
import { isMap, isNode, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import { ConfigError, type ProbeLintConfig } from './config.js';
import { EXCLUDE_PATTERN_SCHEMA, GLOB_SCHEMA, NAMESPACE_NAME_SCHEMA } from './config-schema.js';
import { didYouMean } from './did-you-mean.js';

const schemaPath = join(dirname(fileURLToPath(import.meta.url)), '../../../schema/config.schema.json');
type Schema = {
  properties?: Record<string, Schema>;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  definitions?: Record<string, Schema>;
  $ref?: string;
  enum?: unknown[];
};

let compiled: { schema: Schema; validate: ValidateFunction<ProbeLintConfig> } | undefined;

/** The schema and its validator, compiled on first use only: a run without a config file never pays for it. */
function configValidator(): { schema: Schema; validate: ValidateFunction<ProbeLintConfig> } {
  // Stryker disable next-line ConditionalExpression: a memo; compiling again gives the same validator.
  if (compiled === undefined) {
    const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as Schema;
    // Stryker disable next-line LogicalOperator: ajv's CommonJS export is the class and has itself as .default, so both read the class.
    const Ajv = AjvModule.default ?? AjvModule;
    // Stryker disable next-line BooleanLiteral: strict mode checks the committed schema while it compiles; the schema passes, so it compiles the same either way.
    compiled = { schema, validate: new Ajv({ allErrors: true, verbose: true, strict: true, strictTypes: false }).compile<ProbeLintConfig>(schema) };
  }
  return compiled;
}

/** The committed schema (schema/config.schema.json). */
export function configSchema(): Record<string, unknown> {
  return configValidator().schema;
}

export function loadConfigFile(file: string): ProbeLintConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${file}: cannot read the config file: ${(error as Error).message}`);
  }
  return { ...parseConfig(text, file), file: resolve(file) };
}

export function parseConfig(text: string, file: string): ProbeLintConfig {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true });
  if (document.errors.length > 0) {
    const error = document.errors[0]!;
    // Stryker disable next-line OptionalChaining,ArrayDeclaration: the yaml package sets linePos on every error when it has a LineCounter.
    const [line, column] = error.linePos?.[0] ? [error.linePos[0].line, error.linePos[0].col] : [1, 1];
    throw new ConfigError(`${file}:${line}:${column}: invalid YAML: ${error.message.split('\n')[0]}`);
  }
  let config: unknown;
  try {
    // The yaml package refuses documents whose aliases would expand past a bound ("billion laughs":
    // maxAliasCount, 100 unless told otherwise).
    config = document.toJS() ?? {};
  } catch (error) {
    throw new ConfigError(`${file}: cannot use the config file: ${(error as Error).message}`);
  }
  const { schema, validate } = configValidator();
  if (!validate(config)) {
    // Stryker disable next-line ArrayDeclaration: ajv sets errors whenever validate returns false.
    const messages = relevantErrors(validate.errors ?? []).map((error) => {
      const path = pathOf(error);
      const offset = error.keyword === 'additionalProperties' ? keyOffset(document, path) : valueOffset(document, path);
      // Stryker disable next-line ConditionalExpression: an error's path is always in the document, so there is an offset.
      const where = offset === undefined ? undefined : lineCounter.linePos(offset);
      const location = where ? `${file}:${where.line}:${where.col}` : file;
      return `${location}: ${describeError(error, path, schema)}`;
    });
    throw new ConfigError([...new Set(messages)].join('\n'));
  }
  return config;
}

function valueOffset(document: Document, path: (string | number)[]): number | undefined {
  const node = document.getIn(path, true);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: ajv reports paths of the parsed document, so the node exists and has a range.
  return isNode(node) && node.range ? node.range[0] : undefined;
}

/** Where the key itself is written, for "unknown key" errors. */
// Each guard here changes nothing:
// Stryker disable all: ajv reports only keys written in the document, under mappings of it; getIn([]) is the contents, and keepScalar does not change what a mapping returns.
function keyOffset(document: Document, path: (string | number)[]): number | undefined {
  const parent = path.length > 1 ? document.getIn(path.slice(0, -1), true) : document.contents;
  if (!isMap(parent)) return valueOffset(document, path);
  const pair = parent.items.find((item) => isScalar(item.key) && String(item.key.value) === String(path[path.length - 1]));
  return isScalar(pair?.key) ? pair.key.range?.[0] : undefined;
}
// Stryker restore all

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
  // ajv reports the branches of an allOf as their own errors, and a failed oneOf once more as "oneOf".
  const specific = errors.filter((error) => error.keyword !== 'oneOf');
  const byPath = new Map<string, ErrorObject[]>();
  for (const error of specific) {
    const key = pathOf(error).join('.');
    byPath.set(key, [...(byPath.get(key) ?? []), error]);
  }
  const paths = [...byPath.keys()];
  return [...byPath.entries()]
    .filter(([path, group]) => {
      // A value given as an object whose inner field is wrong: the other branch of the oneOf ("must be
      // one of off/error/…") is noise beside the error that names the field. One error per field.
      // A type error is never noise: it comes only with a value that has no inner fields.
      // Stryker disable next-line MethodExpression: every and some agree, as a group of noise holds one error.
      const onlyBranchNoise = group.every((error) => error.keyword === 'enum');
      return !(onlyBranchNoise && paths.some((other) => other.startsWith(`${path}.`)));
    })
    .map(([, group]) => {
      // The error that names a bound beats the one that names the type or the allowed values: "must be >= 1"
      // for 0.5. A rule setting's oneOf lists the values before the object, so "must be one of off/error/…"
      // comes before "must be object" for a value that is neither.
      // Stryker disable next-line ConditionalExpression,StringLiteral: no field of the schema has both allowed values and a bound, so only "type" needs leaving out beside one.
      const withoutEnum = group.filter((error) => error.keyword !== 'enum' && error.keyword !== 'type');
      return withoutEnum[0] ?? group[0]!;
    });
}

function describeError(error: ErrorObject, path: (string | number)[], schema: Schema): string {
  const key = path.join('.') || '(top level)';
  const last = String(path[path.length - 1]);
  switch (error.keyword) {
    case 'additionalProperties': {
      const allowed = allowedKeys(schema, path.slice(0, -1));
      if (path[0] === 'rules' && path.length === 2) return `${key}: unknown rule "${last}"${didYouMean(last, allowed)}; run \`probe-lint rules\` for the list`;
      // A rule with options lists them in the schema; a rule without has no "options" key at all (below).
      // Stryker disable next-line ConditionalExpression,LogicalOperator: only rules.<id>.options.<key> has "options" third among additionalProperties errors of four segments.
      if (path[0] === 'rules' && path[2] === 'options' && path.length === 4)
        // Stryker disable next-line StringLiteral: each rule with options has one today, so the separator is never written.
        return `${key}: unknown option${didYouMean(last, allowed)}; ${String(path[1])} has: ${allowed.join(', ')}`;
      // Stryker disable next-line ConditionalExpression: rules.<id>.options.options was answered above, so "options" last means three segments.
      if (path[0] === 'rules' && path.length === 3 && last === 'options') return `${key}: rule ${String(path[1])} has no options; remove "options"`;
      // Every object of the schema that refuses other keys lists the keys it takes.
      return `${key}: unknown key${didYouMean(last, allowed)}; allowed here: ${allowed.join(', ')}`;
    }
    case 'enum': {
      const values = (error.params.allowedValues as unknown[]).map((value) => String(value));
      const given = String(valueAtPathOf(error));
      const quoted = values.map((value) => JSON.stringify(value)).join(', ');
      // Stryker disable next-line EqualityOperator: no enum of the schema has exactly 8 values (rule ids: 19 and 20; the rest: 4 or fewer).
      if (values.length > 8) return `${key}: "${given}" is not one of the ${values.length} allowed values${didYouMean(given, values)}`;
      return `${key}: must be one of ${quoted}${didYouMean(given, values)}`;
    }
    case 'pattern':
      if (last === 'expires') return `${key}: must be a date written YYYY-MM-DD (e.g. 2027-03-31)`;
      if (error.params.pattern === NAMESPACE_NAME_SCHEMA.pattern)
        // The namespace pattern checks only the keys of webhook.namespaces (propertyNames).
        return `${key}: ${JSON.stringify(String(error.propertyName))} is not a namespace name (lowercase letters, digits and "-", at most 63)`;
      if (error.params.pattern === GLOB_SCHEMA.pattern)
        return `${key}: a glob holds only letters, digits, ".", "-", "*" and "?", as Kubernetes names and kinds do (got ${JSON.stringify(valueAtPathOf(error))})`;
      // Stryker disable next-line ConditionalExpression: every pattern of the schema is named here; the line after is for one added later.
      if (error.params.pattern === EXCLUDE_PATTERN_SCHEMA.pattern)
        return `${key}: an exclude pattern is relative to the config file's directory, so it cannot start with "/" (got ${JSON.stringify(valueAtPathOf(error))})`;
      // Stryker disable next-line StringLiteral: reached only by a pattern added to the schema later.
      return `${key}: ${error.message}`;
    case 'required':
      // Stryker disable next-line ConditionalExpression,StringLiteral: "reason" is the only required key of the schema (an exemption's); the test is for one added later.
      return `${key}: must have "${String(error.params.missingProperty)}"${error.params.missingProperty === 'reason' ? ' (every exemption says why it exists)' : ''}`;
    default:
      return `${key}: ${error.message}`;
  }
}

function valueAtPathOf(error: ErrorObject): unknown {
  return (error as ErrorObject & { data?: unknown }).data;
}

/** The keys the schema allows at `path`, following $refs and allOf. */
function allowedKeys(schema: Schema, path: (string | number)[]): string[] {
  // Stryker disable all: the walk follows paths ajv reported through the committed schema, so every $ref resolves, every node on the path exists and additionalProperties there is a schema or false.
  const resolveRef = (node: Schema | undefined): Schema | undefined => {
    if (node?.$ref === undefined) return node;
    const name = node.$ref.replace('#/definitions/', '');
    return schema.definitions?.[name];
  };
  const propertiesOf = (node: Schema | undefined): Record<string, Schema> => {
    const resolved = resolveRef(node);
    if (resolved === undefined) return {};
    const merged: Record<string, Schema> = {};
    // A rule setting is oneOf a severity or an object: the object's keys are the ones allowed.
    for (const part of [...(resolved.oneOf ?? []), ...(resolved.anyOf ?? [])]) Object.assign(merged, propertiesOf(part));
    for (const part of resolved.allOf ?? []) Object.assign(merged, propertiesOf(part));
    return Object.assign(merged, resolved.properties ?? {});
  };
  let node: Schema | undefined = schema;
  for (const segment of path) {
    if (typeof segment === 'number') node = resolveRef(node)?.items;
    else {
      const properties = propertiesOf(node);
      const additional = resolveRef(node)?.additionalProperties;
      node = properties[segment] ?? (typeof additional === 'object' ? additional : undefined);
    }
  }
  // Stryker restore all
  return Object.keys(propertiesOf(node));
}
