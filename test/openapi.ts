// Validates objects against the official Kubernetes API schemas as two maintained packages carry them,
// both generated from the Kubernetes OpenAPI: kubernetes-models' validators check types, required
// fields and formats; @kubernetes/client-node's model type maps name every field each type has, so
// unknown fields are rejected as kubectl's strict field validation does. (The e2e suite checks the
// same objects against a real API server.)
import { createRequire } from 'node:module';
import * as client from '@kubernetes/client-node';

const require = createRequire(import.meta.url);

interface AttributeType {
  baseName: string;
  type: string;
}
type ModelClass = { getAttributeTypeMap(): AttributeType[] };

/** `apps/v1` → `Apps`, `V1`; `v1` → `Core`, `V1`; `rbac.authorization.k8s.io/v1` → `Rbac`, `V1`. */
function names(apiVersion: string): { group: string; version: string } {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['core', apiVersion];
  const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
  return { group: capital(group!.split('.')[0]!), version: capital(version!) };
}

interface ValidationFailure {
  errors?: { instancePath: string; message?: string; params?: Record<string, unknown> }[];
}
type KubernetesModel = new (data: unknown) => { validate(): void };

/** kubernetes-models' class for the kind (`kubernetes-models/apps/v1`, `kubernetes-models/v1` for the core group). */
function typedModel(apiVersion: string, kind: string): KubernetesModel {
  const module = apiVersion.includes('/') ? `kubernetes-models/${apiVersion}` : `kubernetes-models/${apiVersion}`;
  let model: KubernetesModel | undefined;
  try {
    model = (require(module) as Record<string, KubernetesModel | undefined>)[kind];
  } catch {
    model = undefined;
  }
  if (model === undefined) throw new Error(`kubernetes-models has no schema for ${apiVersion} ${kind}`);
  return model;
}

/** Type, required and format errors, as `/path message` lines. */
function typeErrors(object: { apiVersion: string; kind: string }): string[] {
  const Model = typedModel(object.apiVersion, object.kind);
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    const errors = (error as ValidationFailure).errors;
    if (errors === undefined) throw error;
    return errors.map((entry) => `${entry.instancePath || '/'} ${entry.message ?? 'is invalid'}`);
  }
}

function modelClass(type: string): ModelClass | undefined {
  const candidate = (client as unknown as Record<string, unknown>)[type] as Partial<ModelClass> | undefined;
  return typeof candidate?.getAttributeTypeMap === 'function' ? (candidate as ModelClass) : undefined;
}

/** Fields no schema type has, as `/path (field)` lines. */
function unknownFields(value: unknown, type: string, path: string, out: string[]): void {
  if (value === null || typeof value !== 'object') return;
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (Array.isArray(value)) value.forEach((item, index) => unknownFields(item, array[1]!, `${path}/${index}`, out));
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    for (const [key, item] of Object.entries(value)) unknownFields(item, map[1]!, `${path}/${key}`, out);
    return;
  }
  const model = modelClass(type);
  if (model === undefined || Array.isArray(value)) return;
  const fields = new Map(model.getAttributeTypeMap().map((attribute) => [attribute.baseName, attribute.type]));
  for (const [key, item] of Object.entries(value)) {
    const fieldType = fields.get(key);
    if (fieldType === undefined) out.push(`${path || '/'} must NOT have additional properties (${key})`);
    else unknownFields(item, fieldType, `${path}/${key}`, out);
  }
}

/** Schema errors of a Kubernetes object, as readable lines; empty when valid. */
export function openApiErrors(object: { apiVersion: string; kind: string }): string[] {
  const errors = typeErrors(object);
  const { version } = names(object.apiVersion);
  const model = `${version}${object.kind}`;
  if (modelClass(model) === undefined) throw new Error(`@kubernetes/client-node has no model ${model}`);
  unknownFields(object, model, '', errors);
  return errors;
}

/** Whether both packages know the kind (CRDs such as cert-manager's and the Prometheus Operator's are not in them). */
export function hasOfficialSchema(object: { apiVersion: string; kind: string }): boolean {
  try {
    typedModel(object.apiVersion, object.kind);
  } catch {
    return false;
  }
  return modelClass(`${names(object.apiVersion).version}${object.kind}`) !== undefined;
}
