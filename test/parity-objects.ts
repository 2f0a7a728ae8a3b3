// Objects written for the policies' parity tests: every rule the policies cover, found and not found,
// in every built-in kind that holds a pod template. They are the parity tests' own data, so the tests
// are as strong on a fresh clone as beside the real corpus (which, where present, adds to them).

type Json = Record<string, unknown>;

interface Scenario {
  name: string;
  containers: Json[];
  initContainers?: Json[];
  /** Annotations of the pod template (or the Pod). */
  annotations?: Record<string, string>;
  /** The pod's restartPolicy, where the scenario sets one (a Job's and a CronJob's is OnFailure). */
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
}

const image = 'registry.example.com/app:1.0';
const http = (path: string, port: number | string = 8080, extra: Json = {}) => ({ httpGet: { path, port, ...extra } });
const tcp = (port: number | string, extra: Json = {}) => ({ tcpSocket: { port, ...extra } });
const exec = (...command: string[]) => ({ exec: { command } });
const container = (name: string, fields: Json = {}): Json => ({ name, image, ports: [{ name: 'http', containerPort: 8080 }], ...fields });

/** Each scenario reaches some of the covered rules' cases (or, on purpose, none of them). */
export const SCENARIOS: readonly Scenario[] = [
  { name: 'no-probes', containers: [container('web')] },
  { name: 'readiness-only', containers: [container('web', { readinessProbe: http('/ready') })] },
  { name: 'well-probed', containers: [container('web', { readinessProbe: http('/ready'), livenessProbe: http('/live', 'http', { scheme: 'HTTP' }) })] },
  { name: 'timeout-at-period', containers: [container('web', { livenessProbe: { ...tcp(8080), timeoutSeconds: 10 }, readinessProbe: http('/ready') })] },
  {
    name: 'timeout-above-period',
    containers: [
      container('web', {
        livenessProbe: { ...http('/live'), periodSeconds: 5, timeoutSeconds: 7 },
        readinessProbe: { ...tcp(8080), periodSeconds: 3, timeoutSeconds: 3 },
      }),
    ],
  },
  {
    name: 'startup-timeout',
    containers: [
      container('web', { startupProbe: { ...tcp(8080), periodSeconds: 2, timeoutSeconds: 2, failureThreshold: 30 }, readinessProbe: http('/ready') }),
    ],
  },
  { name: 'mirror-http', containers: [container('web', { livenessProbe: http('/healthz'), readinessProbe: http('/healthz') })] },
  {
    name: 'mirror-http-named-port',
    containers: [container('web', { livenessProbe: http('healthz', 'http', { scheme: 'http' }), readinessProbe: http('/healthz#x', 8080) })],
  },
  {
    name: 'mirror-later-liveness',
    containers: [container('web', { livenessProbe: { ...http('/healthz'), failureThreshold: 6 }, readinessProbe: http('/healthz') })],
  },
  { name: 'mirror-tcp', containers: [container('web', { livenessProbe: tcp('http'), readinessProbe: tcp(8080) })] },
  { name: 'mirror-exec', containers: [container('web', { livenessProbe: exec('/bin/check'), readinessProbe: exec('/bin/check') })] },
  { name: 'mirror-grpc', containers: [container('web', { livenessProbe: { grpc: { port: 9090 } }, readinessProbe: { grpc: { port: 9090 } } })] },
  {
    name: 'different-checks',
    containers: [
      container('web', { livenessProbe: http('/live'), readinessProbe: http('/ready', 8080, { httpHeaders: [{ name: 'X-Probe', value: 'ready' }] }) }),
    ],
  },
  {
    name: 'slow-start',
    containers: [container('web', { livenessProbe: { ...http('/live'), initialDelaySeconds: 90 }, readinessProbe: http('/ready') })],
  },
  {
    name: 'slow-start-with-startup',
    containers: [
      container('web', {
        startupProbe: { ...http('/live'), failureThreshold: 30 },
        livenessProbe: { ...http('/live'), initialDelaySeconds: 90 },
        readinessProbe: http('/ready'),
      }),
    ],
  },
  {
    name: 'exec-often',
    containers: [
      container('web', { livenessProbe: { ...exec('cat', '/tmp/healthy'), periodSeconds: 2 }, readinessProbe: { ...exec('true'), periodSeconds: 5 } }),
    ],
  },
  {
    name: 'exec-seldom',
    containers: [container('web', { livenessProbe: { ...exec('cat', '/tmp/healthy'), periodSeconds: 30 }, readinessProbe: http('/ready') })],
  },
  {
    name: 'probe-host',
    containers: [container('web', { livenessProbe: http('/live', 8080, { host: '10.0.0.1' }), readinessProbe: tcp(8080, { host: 'db.example.com' }) })],
  },
  {
    name: 'probe-host-loopback',
    containers: [container('web', { livenessProbe: http('/live', 8080, { host: '127.0.0.1' }), readinessProbe: http('/ready') })],
  },
  { name: 'undeclared-port', containers: [container('web', { livenessProbe: tcp('metrics'), readinessProbe: http('/ready', 'admin') })] },
  { name: 'declared-port', containers: [container('web', { livenessProbe: tcp('http'), readinessProbe: http('/ready', 'http') })] },
  {
    name: 'unknown-ignore',
    annotations: { 'probe-lint.dev/ignore': 'liveness-mirors-readines, missing-liveness-probe # vendor image' },
    containers: [container('web', { readinessProbe: http('/ready') })],
  },
  {
    name: 'ignored-timeout',
    annotations: { 'probe-lint.dev/ignore': 'timeout-not-below-period' },
    containers: [container('web', { livenessProbe: { ...tcp(8080), timeoutSeconds: 12 }, readinessProbe: http('/ready') })],
  },
  {
    name: 'ignored-per-container',
    annotations: { 'probe-lint.dev/ignore.web': 'missing-liveness-probe,missing-readiness-probe' },
    containers: [container('web'), container('worker', { ports: [{ containerPort: 9000 }] })],
  },
  {
    name: 'sidecar',
    initContainers: [
      container('proxy', { restartPolicy: 'Always', ports: [{ name: 'admin', containerPort: 15000 }], livenessProbe: { ...tcp('admin'), timeoutSeconds: 10 } }),
    ],
    containers: [container('web', { readinessProbe: http('/ready'), livenessProbe: http('/live') })],
  },
  {
    name: 'two-containers',
    containers: [
      container('web', { livenessProbe: http('/healthz'), readinessProbe: http('/healthz') }),
      container('cache', {
        ports: [{ name: 'redis', containerPort: 6379 }],
        livenessProbe: { ...exec('redis-cli', 'ping'), periodSeconds: 3 },
        readinessProbe: tcp('redis'),
      }),
    ],
  },
  // Liveness that checks dependencies: the frameworks' default paths (in the CEL), and what only the engine reads.
  {
    name: 'spring-aggregate-health',
    containers: [container('api', { livenessProbe: http('/actuator/health'), readinessProbe: http('/actuator/health/readiness') })],
  },
  {
    name: 'spring-groups',
    containers: [container('api', { livenessProbe: http('/actuator/health/liveness'), readinessProbe: http('/actuator/health') })],
  },
  {
    name: 'quarkus-ready-in-startup-and-liveness',
    containers: [
      container('api', {
        startupProbe: { ...http('q/health//'), failureThreshold: 30 },
        livenessProbe: http('/q/health/ready?verbose#top', 'http'),
        readinessProbe: http('/q/health/ready'),
      }),
    ],
  },
  {
    name: 'micronaut-readiness',
    containers: [container('api', { livenessProbe: http('/health/readiness'), readinessProbe: http('/health/readiness') })],
  },
  {
    name: 'framework-path-moved-by-env',
    containers: [
      container('api', {
        env: [
          { name: 'SERVER_SERVLET_CONTEXT_PATH', value: '/shop' },
          { name: 'QUARKUS_HTTP_ROOT_PATH', value: '/shop' },
        ],
        livenessProbe: http('/shop/actuator/health'),
        readinessProbe: http('/q/health'),
      }),
    ],
  },
  {
    name: 'exec-checks-database',
    containers: [
      container('api', {
        livenessProbe: exec('sh', '-c', 'pg_isready -h postgres.data.svc -p 5432'),
        readinessProbe: exec('redis-cli', '-h', 'localhost', 'ping'),
      }),
    ],
  },
  // Per-container restart policies (ContainerRestartRules, beta and on since 1.35).
  {
    name: 'server-in-run-once-pod',
    restartPolicy: 'Never',
    containers: [container('web', { restartPolicy: 'Always', livenessProbe: http('/healthz'), readinessProbe: http('/healthz') })],
  },
  {
    name: 'task-in-serving-pod',
    containers: [
      container('web', { livenessProbe: http('/live'), readinessProbe: http('/ready') }),
      container('task', { restartPolicy: 'Never', ports: [{ containerPort: 9000 }], livenessProbe: tcp(9000), readinessProbe: tcp(9000) }),
    ],
  },
];

interface Kind {
  apiVersion: string;
  kind: string;
  /** The object around a pod spec with its template metadata. */
  wrap: (metadata: Json, spec: Json) => Json;
  /** Pods of the kind run to completion (restartPolicy must not be Always). */
  completes?: true;
}

const labels = { app: 'parity' };
const template = (metadata: Json, spec: Json) => ({ metadata: { ...metadata, labels }, spec });

const KINDS: readonly Kind[] = [
  { apiVersion: 'v1', kind: 'Pod', wrap: (metadata, spec) => ({ metadata, spec }) },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    wrap: (metadata, spec) => ({ spec: { selector: { matchLabels: labels }, template: template(metadata, spec) } }),
  },
  {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    wrap: (metadata, spec) => ({ spec: { serviceName: 'parity', selector: { matchLabels: labels }, template: template(metadata, spec) } }),
  },
  { apiVersion: 'apps/v1', kind: 'DaemonSet', wrap: (metadata, spec) => ({ spec: { selector: { matchLabels: labels }, template: template(metadata, spec) } }) },
  {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    wrap: (metadata, spec) => ({ spec: { selector: { matchLabels: labels }, template: template(metadata, spec) } }),
  },
  { apiVersion: 'v1', kind: 'ReplicationController', wrap: (metadata, spec) => ({ spec: { selector: labels, template: template(metadata, spec) } }) },
  { apiVersion: 'v1', kind: 'PodTemplate', wrap: (metadata, spec) => ({ template: template(metadata, spec) }) },
  { apiVersion: 'batch/v1', kind: 'Job', completes: true, wrap: (metadata, spec) => ({ spec: { template: { metadata, spec } } }) },
  {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    completes: true,
    wrap: (metadata, spec) => ({ spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { metadata, spec } } } } }),
  },
];

/** Every scenario in every kind, named `<kind>-<scenario>`. */
export function writtenParityObjects(): { from: string; object: Json }[] {
  const objects: { from: string; object: Json }[] = [];
  for (const kind of KINDS) {
    for (const scenario of SCENARIOS) {
      const name = `${kind.kind.toLowerCase()}-${scenario.name}`;
      const spec: Json = {
        ...(kind.completes ? { restartPolicy: 'OnFailure' } : scenario.restartPolicy !== undefined ? { restartPolicy: scenario.restartPolicy } : {}),
        ...(scenario.initContainers ? { initContainers: scenario.initContainers } : {}),
        containers: scenario.containers,
      };
      const podMetadata: Json = scenario.annotations ? { annotations: scenario.annotations } : {};
      const wrapped = kind.wrap(podMetadata, spec);
      // A Pod's own metadata holds its annotations; every other kind's name is its own.
      const metadata = kind.kind === 'Pod' ? { ...podMetadata, name } : { name };
      objects.push({ from: `test/parity-objects.ts: ${kind.kind}/${name}`, object: { apiVersion: kind.apiVersion, kind: kind.kind, ...wrapped, metadata } });
    }
  }
  return objects;
}
