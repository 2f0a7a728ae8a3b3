// Validates objects against the official Kubernetes OpenAPI v3 schemas in ../shared/k8s-openapi,
// rejecting unknown fields as kubectl's strict field validation does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import AjvModule, { type ValidateFunction } from 'ajv';
import { SHARED } from './helpers.js';

const Ajv = AjvModule.default ?? AjvModule;
const OPENAPI = join(SHARED, 'k8s-openapi/v1.35');

/** Which spec file holds the schema of an apiVersion. */
const FILES: Record<string, string> = {
  v1: 'api__v1_openapi.json',
  'apps/v1': 'apis__apps__v1_openapi.json',
  'batch/v1': 'apis__batch__v1_openapi.json',
  'admissionregistration.k8s.io/v1': 'apis__admissionregistration.k8s.io__v1_openapi.json',
};

const validators = new Map<string, ValidateFunction>();
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
const loaded = new Set<string>();

/** Marks every object schema with declared properties as closed, unless it says it keeps unknown fields. */
function closeSchemas(schemas: Record<string, any>): void {
  for (const schema of Object.values(schemas)) {
    if (schema.properties && schema.additionalProperties === undefined && !schema['x-kubernetes-preserve-unknown-fields']) {
      schema.additionalProperties = false;
    }
  }
}

export function openApiValidator(apiVersion: string, kind: string): ValidateFunction {
  const file = FILES[apiVersion];
  if (file === undefined) throw new Error(`no OpenAPI file for ${apiVersion}`);
  if (!loaded.has(file)) {
    const document = JSON.parse(readFileSync(join(OPENAPI, file), 'utf8'));
    closeSchemas(document.components.schemas);
    ajv.addSchema({ $id: file, components: document.components });
    loaded.add(file);
  }
  const key = `${apiVersion}/${kind}`;
  let validator = validators.get(key);
  if (validator === undefined) {
    const group = apiVersion.includes('/') ? apiVersion.split('/')[0]!.replace(/\.k8s\.io$/, '') : 'core';
    const version = apiVersion.split('/').pop()!;
    const name = `io.k8s.api.${group}.${version}.${kind}`;
    validator = ajv.compile({ $ref: `${file}#/components/schemas/${name}` });
    validators.set(key, validator);
  }
  return validator;
}

/** Schema errors of a Kubernetes object, as readable lines; empty when valid. */
export function openApiErrors(object: { apiVersion: string; kind: string }): string[] {
  const validate = openApiValidator(object.apiVersion, object.kind);
  if (validate(object)) return [];
  return (validate.errors ?? []).map(
    (error) =>
      `${error.instancePath || '/'} ${error.message}${error.params && 'additionalProperty' in error.params ? ` (${error.params.additionalProperty})` : ''}`,
  );
}
