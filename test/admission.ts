// AdmissionReviews shaped as the API server sends them (reference §5): full request fields, and
// objects as they look after the API server's defaulting (probe defaults, pod defaults).
import { randomUUID } from 'node:crypto';

type Json = Record<string, any>;

const RESOURCES: Record<string, { group: string; version: string; resource: string }> = {
  Pod: { group: '', version: 'v1', resource: 'pods' },
  ConfigMap: { group: '', version: 'v1', resource: 'configmaps' },
  Deployment: { group: 'apps', version: 'v1', resource: 'deployments' },
  CronJob: { group: 'batch', version: 'v1', resource: 'cronjobs' },
  Rollout: { group: 'argoproj.io', version: 'v1alpha1', resource: 'rollouts' },
};

export function admissionReview(options: {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  object?: Json;
  oldObject?: Json;
  dryRun?: boolean;
  namespace?: string;
}): Json {
  const subject = (options.object ?? options.oldObject)!;
  const resource = RESOURCES[subject.kind]!;
  const kind = { group: resource.group, version: resource.version, kind: subject.kind };
  const optionsKind = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions', CONNECT: 'ConnectOptions' }[options.operation];
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: randomUUID(),
      kind,
      resource,
      requestKind: kind,
      requestResource: resource,
      name: subject.metadata?.name ?? '',
      namespace: options.namespace ?? subject.metadata?.namespace ?? 'default',
      operation: options.operation,
      userInfo: { username: 'kubernetes-admin', uid: 'aws-iam-authenticator:1234', groups: ['system:masters', 'system:authenticated'] },
      object: options.operation === 'DELETE' ? null : (options.object ?? null),
      oldObject: options.oldObject ?? null,
      dryRun: options.dryRun ?? false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: optionsKind, ...(options.operation === 'CREATE' ? { fieldManager: 'kubectl-client-side-apply' } : {}) },
    },
  };
}

/** A probe as the API server stores it: every default filled in. */
export function defaultedProbe(probe: Json): Json {
  const filled: Json = { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3, ...probe };
  if (filled.httpGet) filled.httpGet = { path: '/', scheme: 'HTTP', ...filled.httpGet };
  return filled;
}

export function container(name: string, probes: Json = {}, extra: Json = {}): Json {
  const probed: Json = {};
  for (const [field, probe] of Object.entries(probes)) probed[field] = defaultedProbe(probe as Json);
  return {
    name,
    image: `registry.example.com/${name}:1.0`,
    env: [{ name: 'DATABASE_PASSWORD', value: 'hunter2-secret-value' }],
    resources: {},
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
    ...probed,
    ...extra,
  };
}

export function podSpec(containers: Json[]): Json {
  return {
    containers,
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    securityContext: {},
    schedulerName: 'default-scheduler',
  };
}

export function pod(containers: Json[], metadata: Json = {}): Json {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop', ...metadata }, spec: podSpec(containers) };
}

export function deployment(containers: Json[], metadata: Json = {}, replicas = 3): Json {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', generation: 1, ...metadata },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: podSpec(containers) },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
  };
}

export function cronJob(containers: Json[]): Json {
  const spec = podSpec(containers);
  spec.restartPolicy = 'OnFailure';
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'report', namespace: 'shop' },
    spec: { schedule: '0 3 * * *', concurrencyPolicy: 'Allow', suspend: false, jobTemplate: { spec: { template: { spec } } } },
  };
}

export function rollout(containers: Json[]): Json {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'canary', namespace: 'shop' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'canary' } }, template: { metadata: { labels: { app: 'canary' } }, spec: podSpec(containers) } },
  };
}
