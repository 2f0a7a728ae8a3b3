// The fields probe-field-unknown knows, against the official schema: the core/v1 types kubernetes-types
// generates from the Kubernetes OpenAPI document (1.30 here), plus the fields added since, each named.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { CONTAINER_FIELDS, unknownFields, type KnownType } from '../src/model/known-fields.js';

/** Fields newer than the schema kubernetes-types was generated from, by type, with the release that added them. */
const NEWER: Record<string, Record<string, string>> = {
  Container: { restartPolicyRules: '1.34 (ContainerRestartRules)', targetContainerName: 'an EphemeralContainer field, checked with the same list' },
  HTTPGetAction: { protocol: '1.37 (H2CContainerProbe, alpha)' },
  GRPCAction: { mode: '1.37 (GRPCContainerProbeTLS, alpha)' },
  EnvVarSource: { fileKeyRef: '1.34 (EnvFiles, alpha)' },
};

/** The property names of an interface of the generated declarations. */
function schemaFields(declarations: string, name: string): Set<string> {
  const start = declarations.indexOf(`export interface ${name} {`);
  assert.ok(start !== -1, `${name} is in the schema`);
  const body = declarations.slice(start, declarations.indexOf('\n}', start));
  return new Set([...body.matchAll(/^ {4}(?:readonly )?(\w+)\??:/gm)].map((match) => match[1]!));
}

function everyType(root: KnownType): KnownType[] {
  const types = new Map<string, KnownType>();
  const walk = (type: KnownType) => {
    if (types.has(type.name)) return;
    types.set(type.name, type);
    for (const nested of Object.values(type.nested ?? {})) walk(nested.type);
  };
  walk(root);
  return [...types.values()];
}

describe('known fields', () => {
  const declarations = readFileSync(createRequire(import.meta.url).resolve('kubernetes-types/core/v1.d.ts'), 'utf8');

  it("are the official schema's fields of each type, and the newer ones named above, no more and no fewer", () => {
    const types = everyType(CONTAINER_FIELDS);
    assert.deepEqual(types.map((type) => type.name).sort(), [
      'Container',
      'ContainerPort',
      'EnvVar',
      'EnvVarSource',
      'ExecAction',
      'GRPCAction',
      'HTTPGetAction',
      'HTTPHeader',
      'Probe',
      'TCPSocketAction',
    ]);
    for (const type of types) {
      const expected = new Set([...schemaFields(declarations, type.name), ...Object.keys(NEWER[type.name] ?? {})]);
      assert.deepEqual([...type.fields].sort(), [...expected].sort(), type.name);
    }
  });

  it('finds each unknown key once, at its pointer, and does not walk into what it does not know', () => {
    const container = {
      name: 'a',
      livenesProbe: { initialDelaySecond: 1 },
      readinessProbe: { httpGet: { port: 80, httpHeaders: [{ name: 'x', valu: 'y' }] }, 'successThreshold:': 1 },
      env: [{ name: 'A', valueFrom: { secretRef: {} } }],
    };
    assert.deepEqual(
      unknownFields(container, CONTAINER_FIELDS, '/spec/containers/0').map(({ pointer, path, type }) => [pointer, path, type.name]),
      [
        ['/spec/containers/0/livenesProbe', 'livenesProbe', 'Container'],
        ['/spec/containers/0/readinessProbe/httpGet/httpHeaders/0/valu', 'readinessProbe.httpGet.httpHeaders[0].valu', 'HTTPHeader'],
        ['/spec/containers/0/readinessProbe/successThreshold:', 'readinessProbe.successThreshold:', 'Probe'],
        ['/spec/containers/0/env/0/valueFrom/secretRef', 'env[0].valueFrom.secretRef', 'EnvVarSource'],
      ],
    );
  });
});
