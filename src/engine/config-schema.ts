// The configuration's JSON Schema, built from the rules' own metadata: each rule's options and its
// admission opt-in come from the rule, nothing is listed twice. `npm run generate` writes it to
// schema/config.schema.json (what editors and the loader use); a test fails when that file is stale.
import { PROBE_FEATURE_GATES } from '../model/feature-gates.js';
import type { AnyRule } from './rule.js';

type Schema = Record<string, unknown>;

const MODE = { $ref: '#/definitions/mode' };

/**
 * Globs match Kubernetes names and kinds, so they hold only what those can: letters, digits, `.`
 * and `-`, with `*` and `?`. Anything else (a newline, `;`, `,`, `=`) could match no object here
 * yet change the meaning of the admission policies' parameters, so the schema refuses it.
 */
export const GLOB_SCHEMA = { type: 'string', minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.*?-]+$' } as const;
/** A path glob of `exclude`: relative, so a config cannot name the machine's files (and means the same wherever the checkout is). */
export const EXCLUDE_PATTERN_SCHEMA = { type: 'string', minLength: 1, maxLength: 1024, pattern: '^[^/]' } as const;
/** A namespace name (RFC 1123 label), as the API server allows it. */
export const NAMESPACE_NAME_SCHEMA = { type: 'string', maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' } as const;

/** The parts of the config schema the chart's values.schema.json carries, so that helm refuses what probe-lint would. */
export function chartConfigSchema(): Schema {
  const glob = (description: string) => ({ ...GLOB_SCHEMA, description });
  return {
    type: 'object',
    properties: {
      ignore: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            kind: glob('Glob on the object kind.'),
            namespace: glob('Glob on the namespace.'),
            name: glob('Glob on the object name.'),
            container: glob('Glob on the container name.'),
          },
        },
      },
      webhook: { type: 'object', properties: { namespaces: { type: 'object', propertyNames: NAMESPACE_NAME_SCHEMA } } },
    },
  };
}

export function buildConfigSchema(rules: readonly AnyRule[]): Schema {
  const ids = rules.map((rule) => rule.meta.id).sort();
  const optIns = rules.flatMap((rule) => (rule.meta.admission ? [{ rule: rule.meta.id, ...rule.meta.admission.optIn }] : []));
  const ruleSettings: Record<string, Schema> = {};
  // Stryker disable next-line EqualityOperator: rule ids are unique, so no two compare equal.
  for (const rule of [...rules].sort((a, b) => (a.meta.id < b.meta.id ? -1 : 1))) {
    const options = rule.meta.options;
    ruleSettings[rule.meta.id] = options
      ? {
          allOf: [
            { $ref: '#/definitions/ruleSetting' },
            { properties: { options: { type: 'object', additionalProperties: false, properties: { ...options.schema } } } },
          ],
        }
      : { $ref: '#/definitions/ruleSettingWithoutOptions' };
  }
  const optInProperties = Object.fromEntries(
    optIns.map((optIn) => [
      optIn.configKey,
      {
        type: 'boolean',
        description: `${optIn.description} (${optIn.rule}). Default false: only where the namespace label or the object annotation ${optIn.label} is "true".`,
      },
    ]),
  );
  const namespaceOptIns = Object.fromEntries(optIns.map((optIn) => [optIn.configKey, { type: 'boolean' }]));

  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://probe-lint.dev/schema/config.schema.json',
    title: 'probe-lint configuration (.probe-lint.yaml)',
    type: 'object',
    additionalProperties: false,
    properties: {
      rules: {
        description: 'Per rule: "off", a severity, or an object with enabled, severity and options.',
        type: 'object',
        additionalProperties: false,
        properties: ruleSettings,
      },
      cluster: {
        type: 'object',
        additionalProperties: false,
        properties: {
          podsPerNode: { type: 'number', exclusiveMinimum: 0, description: 'Mean pods per node of the target cluster.' },
          densePodsPerNode: { type: 'number', exclusiveMinimum: 0, description: 'Pods per node at or above which the cluster counts as dense (default 50).' },
          denseCapacityFraction: {
            type: 'number',
            exclusiveMinimum: 0,
            maximum: 1,
            description:
              'Dense when the mean of pods ÷ allocatable pods per node is at or above this (used instead of densePodsPerNode when the cluster reports capacity).',
          },
          featureGates: {
            type: 'array',
            items: { enum: [...PROBE_FEATURE_GATES] },
            uniqueItems: true,
            description:
              'Alpha feature gates your clusters have on (API server and kubelets): their probe fields are validated as the API server then does, and not reported as gated.',
          },
          refreshIntervalSeconds: { type: 'number', minimum: 1, description: 'How often the webhook refreshes density from the API server (default 60).' },
          guard: {
            type: 'object',
            additionalProperties: false,
            description: 'Protection of every API server call.',
            properties: {
              deadlineSeconds: { type: 'number', exclusiveMinimum: 0, description: 'Per-call deadline (default 30).' },
              backoffInitialSeconds: { type: 'number', exclusiveMinimum: 0, description: 'First backoff after a failure (default 1), doubling each time.' },
              backoffMaxSeconds: { type: 'number', exclusiveMinimum: 0, description: 'Backoff cap (default 300).' },
              failureThreshold: { type: 'integer', minimum: 1, description: 'Consecutive failures that open the circuit (default 10).' },
              openSeconds: { type: 'number', exclusiveMinimum: 0, description: 'How long the circuit stays open before one trial call (default 1800).' },
            },
          },
        },
      },
      exclude: {
        description:
          'Paths the CLI, the pre-commit hook and the language server never lint: globs (*, **, ?, [..], {a,b}) relative to the directory of this file, as in .gitignore: a directory excludes all under it. E.g. hack/**, "**/testdata".',
        type: 'array',
        items: EXCLUDE_PATTERN_SCHEMA,
      },
      inputErrors: {
        type: 'object',
        additionalProperties: false,
        description:
          'What an input error of a kind means for the run (lint): error (exit 2, the default), warning (shown, never exit 2) or ignore (not shown; stderr says how many).',
        properties: {
          network: {
            enum: ['error', 'warning', 'ignore'],
            description:
              'An input only the network could complete: a chart dependency not in charts/ (helm dependency build), a remote kustomize base, a chart inflated from a repository. Default error, so nothing is hidden; a pipeline that fetches them in a trusted step first needs none of this.',
          },
        },
      },
      baseline: {
        description:
          'The baseline file (probe-lint --write-baseline writes it): findings it holds are reported apart and never fail the run. Relative to the directory of this file; default .probe-lint-baseline.json in the working directory when it exists.',
        type: 'string',
        minLength: 1,
      },
      ignore: {
        description: 'Exemptions owned by the config: each needs a reason, and may expire.',
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['reason'],
          properties: {
            kind: { ...GLOB_SCHEMA, description: 'Glob (* and ?) on the object kind.' },
            namespace: { ...GLOB_SCHEMA, description: 'Glob on the namespace.' },
            name: { ...GLOB_SCHEMA, description: 'Glob on the object name.' },
            container: { ...GLOB_SCHEMA, description: 'Glob on the container name.' },
            rules: { type: 'array', items: { $ref: '#/definitions/ruleIdOrStar' }, minItems: 1, description: 'Rule ids, or "*"; default every rule.' },
            reason: { type: 'string', minLength: 1, description: 'Why the exemption exists (required).' },
            expires: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD; after this day the findings come back.' },
          },
        },
      },
      suppression: {
        description: 'Who may suppress findings besides this config.',
        type: 'object',
        additionalProperties: false,
        properties: {
          annotations: {
            type: 'boolean',
            description: 'Honour probe-lint.dev/ignore annotations on objects (default true; false is what --strict does).',
          },
          annotationRules: {
            type: 'array',
            items: { $ref: '#/definitions/ruleId' },
            uniqueItems: true,
            description: 'When set, annotations may suppress only these rules.',
          },
        },
      },
      webhook: {
        description: 'Admission webhook behaviour (probe-lint serve).',
        type: 'object',
        additionalProperties: false,
        properties: {
          mode: {
            ...MODE,
            description: 'Default mode: warn (default) returns findings as admission warnings; enforce also denies on errors; off allows everything untouched.',
          },
          namespaceLabels: {
            enum: ['tighten-only', 'trusted', 'ignored'],
            description:
              'How the namespace label probe-lint.dev/mode is read: tighten-only (default) lets it make a namespace stricter, never looser; trusted lets it set any mode; ignored disregards it.',
          },
          annotationsInEnforce: {
            type: 'boolean',
            description:
              'Let probe-lint.dev/ignore annotations on the object lift a denial in enforce mode (default false: in enforce mode only the config exempts; in warn mode annotations still suppress warnings).',
          },
          ...optInProperties,
          coveredByPolicies: {
            type: 'boolean',
            description:
              'The admission policies (probe-lint policies) are installed too: the webhook leaves the rules they cover, and their fixes, to them (the chart sets this with policies.enabled).',
          },
          mutateTemplates: {
            type: 'boolean',
            description:
              'Also mutate pod templates of workloads (Deployments, StatefulSets, ...). Default false: only Pods on CREATE, since a patched template shows up as drift in GitOps tools.',
          },
          fixAtAdmission: {
            type: 'array',
            items: { enum: optIns.map((optIn) => optIn.rule) },
            uniqueItems: true,
            // Stryker disable next-line StringLiteral: one rule opts in today, so neither the separator nor "none" is written.
            description: `Rules whose fix the mutating webhook may apply, where opted in. Default: ${optIns.map((optIn) => optIn.rule).join(', ') || 'none'}.`,
          },
          maxContainersPerReview: {
            type: 'integer',
            minimum: 1,
            description:
              'Objects with more containers than this are not linted at admission; they get one warning (or a denial in enforce mode) instead (default 500).',
          },
          maxWorkPerReview: {
            type: 'integer',
            minimum: 1000,
            description:
              "Work units one review's lint may take (a rule run on a container, or about a character an exec command's reader reads); past them the review answers with the findings found before, and a warning that says so (default 20,000,000).",
          },
          namespaces: {
            type: 'object',
            description: 'Per-namespace settings, decided by the platform: they win over namespace labels.',
            propertyNames: NAMESPACE_NAME_SCHEMA,
            additionalProperties: {
              type: 'object',
              additionalProperties: false,
              properties: { mode: MODE, ...namespaceOptIns },
            },
          },
        },
      },
    },
    definitions: {
      severity: { enum: ['error', 'warning', 'info'] },
      ruleId: { enum: ids },
      ruleIdOrStar: { enum: ['*', ...ids] },
      ruleSetting: {
        oneOf: [
          { enum: ['off', 'error', 'warning', 'info'] },
          {
            type: 'object',
            additionalProperties: false,
            properties: { enabled: { type: 'boolean' }, severity: { $ref: '#/definitions/severity' }, options: { type: 'object' } },
          },
        ],
      },
      ruleSettingWithoutOptions: {
        oneOf: [
          { enum: ['off', 'error', 'warning', 'info'] },
          {
            type: 'object',
            additionalProperties: false,
            properties: { enabled: { type: 'boolean' }, severity: { $ref: '#/definitions/severity' } },
          },
        ],
      },
      mode: { enum: ['enforce', 'warn', 'off'] },
    },
  };
}
