// The fields Kubernetes (core/v1, 1.37) knows in a container and in what its probes are made of, as
// the official OpenAPI schema lists them (test/known-fields.test.ts checks them against the schema
// kubernetes-types is generated from, plus the fields newer than it, each named with its version).
// A key not listed is an unknown field: with strict field validation (kubectl's default) the API
// server refuses the object; without it, it drops the field and only warns.

import { joinPointer } from './pointer.js';

/** A type's fields, and the types of those that hold objects (or lists of them) of their own. */
export interface KnownType {
  name: string;
  fields: ReadonlySet<string>;
  nested?: Readonly<Record<string, { type: KnownType; list?: boolean }>>;
}

const type = (name: string, fields: readonly string[], nested?: KnownType['nested']): KnownType => ({
  name,
  fields: new Set(fields),
  ...(nested !== undefined ? { nested } : {}),
});

const HTTP_HEADER = type('HTTPHeader', ['name', 'value']);
/** protocol: alpha in 1.37 (H2CContainerProbe). */
const HTTP_GET = type('HTTPGetAction', ['path', 'port', 'host', 'scheme', 'httpHeaders', 'protocol'], { httpHeaders: { type: HTTP_HEADER, list: true } });
/** mode: alpha in 1.37 (GRPCContainerProbeTLS). */
const GRPC = type('GRPCAction', ['port', 'service', 'mode']);

export const PROBE_TYPE = type(
  'Probe',
  [
    'exec',
    'httpGet',
    'tcpSocket',
    'grpc',
    'initialDelaySeconds',
    'timeoutSeconds',
    'periodSeconds',
    'successThreshold',
    'failureThreshold',
    'terminationGracePeriodSeconds',
  ],
  {
    exec: { type: type('ExecAction', ['command']) },
    httpGet: { type: HTTP_GET },
    tcpSocket: { type: type('TCPSocketAction', ['port', 'host']) },
    grpc: { type: GRPC },
  },
);

/** fileKeyRef: alpha in 1.34 (EnvFiles). */
const ENV_VAR_SOURCE = type('EnvVarSource', ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef', 'fileKeyRef']);

/** restartPolicyRules: 1.34 (ContainerRestartRules); targetContainerName: ephemeral containers only, accepted in the shared schema check here. */
export const CONTAINER_FIELDS = type(
  'Container',
  [
    'name',
    'image',
    'command',
    'args',
    'workingDir',
    'ports',
    'envFrom',
    'env',
    'resources',
    'resizePolicy',
    'restartPolicy',
    'restartPolicyRules',
    'volumeMounts',
    'volumeDevices',
    'livenessProbe',
    'readinessProbe',
    'startupProbe',
    'lifecycle',
    'terminationMessagePath',
    'terminationMessagePolicy',
    'imagePullPolicy',
    'securityContext',
    'stdin',
    'stdinOnce',
    'tty',
    'targetContainerName',
  ],
  {
    ports: { type: type('ContainerPort', ['name', 'hostPort', 'containerPort', 'protocol', 'hostIP']), list: true },
    env: { type: type('EnvVar', ['name', 'value', 'valueFrom'], { valueFrom: { type: ENV_VAR_SOURCE } }), list: true },
    livenessProbe: { type: PROBE_TYPE },
    readinessProbe: { type: PROBE_TYPE },
    startupProbe: { type: PROBE_TYPE },
  },
);

export interface UnknownField {
  /** Pointer to the key's value, inside the document. */
  pointer: string;
  /** Where it is, from the container: `livenessProbe.initialDelaySecond`, `ports[0].containerPortt`. */
  path: string;
  key: string;
  /** The type the key is not a field of, and its fields. */
  type: KnownType;
  /** The type that holds that one (a Probe for its httpGet): a key of its is one written a level too deep. */
  parent: KnownType | undefined;
}

/** Every key under `value` (a container) that its type does not know; nested objects of unknown keys are not walked. */
export function unknownFields(value: unknown, known: KnownType, pointer: string, path = ''): UnknownField[] {
  const found: UnknownField[] = [];
  const walk = (node: unknown, at: KnownType, where: string, shown: string, parent: KnownType | undefined) => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
    for (const [key, child] of Object.entries(node)) {
      const childPointer = joinPointer(where, key);
      const childPath = shown === '' ? key : `${shown}.${key}`;
      if (!at.fields.has(key)) {
        found.push({ pointer: childPointer, path: childPath, key, type: at, parent });
        continue;
      }
      const nested = Object.hasOwn(at.nested ?? {}, key) ? at.nested![key] : undefined;
      if (nested === undefined) continue;
      if (nested.list === true) {
        if (Array.isArray(child)) child.forEach((item, index) => walk(item, nested.type, joinPointer(childPointer, index), `${childPath}[${index}]`, at));
      } else walk(child, nested.type, childPointer, childPath, at);
    }
  };
  walk(value, known, pointer, path, undefined);
  return found;
}
