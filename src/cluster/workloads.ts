// The pod-bearing workloads living in a cluster, for `probe-lint audit`, and its Services (which
// pods they select decides missing-readiness-probe's severity, as it does for files). Pods owned
// by a controller and Jobs owned by a CronJob are skipped: their template is checked where it is
// written, so nothing is counted twice.
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { isObject } from '../model/json-value.js';
import type { ProgressListener } from '../model/progress.js';
import type { KubeObject } from '../model/resource.js';
import type { CallGuard } from './call-guard.js';
import type { KubeClient } from './kube-client.js';
import { podSummary, type PodSummary } from './runtime-evidence.js';

const WORKLOADS = [
  { apiVersion: 'apps/v1', kind: 'Deployment', base: '/apis/apps/v1', resource: 'deployments' },
  { apiVersion: 'apps/v1', kind: 'StatefulSet', base: '/apis/apps/v1', resource: 'statefulsets' },
  { apiVersion: 'apps/v1', kind: 'DaemonSet', base: '/apis/apps/v1', resource: 'daemonsets' },
  { apiVersion: 'batch/v1', kind: 'CronJob', base: '/apis/batch/v1', resource: 'cronjobs' },
  { apiVersion: 'batch/v1', kind: 'Job', base: '/apis/batch/v1', resource: 'jobs' },
  { apiVersion: 'v1', kind: 'Pod', base: '/api/v1', resource: 'pods' },
  { apiVersion: 'v1', kind: 'Service', base: '/api/v1', resource: 'services' },
] as const;

/** kubectl apply's copy of the whole object, as it was last applied: an annotation no rule reads. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * What audit keeps of a listed object to lint it: everything but the API server's field bookkeeping
 * (managedFields), the status, and kubectl's last-applied copy of the object. No rule and no report
 * reads them (runtime evidence is taken from each Pod before this), and at 150,000 Pods they were
 * most of what audit held.
 */
export function toLint(item: KubeObject, apiVersion: string, kind: string): KubeObject {
  const { status: _status, metadata, ...fields } = item;
  return { ...fields, apiVersion, kind, ...(metadata === undefined ? {} : { metadata: keptMetadata(metadata) }) };
}

/**
 * An object's metadata without managedFields and the last-applied annotation. What the API server
 * answers is not trusted to be well formed: only an object's fields are dropped, anything else is kept as it came.
 */
function keptMetadata(metadata: ObjectMeta): ObjectMeta {
  if (!isObject(metadata)) return metadata;
  const { managedFields: _managedFields, ...kept } = metadata;
  if (isObject(kept.annotations) && LAST_APPLIED in kept.annotations) {
    const { [LAST_APPLIED]: _lastApplied, ...annotations } = kept.annotations;
    kept.annotations = annotations;
  }
  return kept;
}

function isOwnedByController(object: KubeObject): boolean {
  return (object.metadata?.ownerReferences ?? []).some((owner) => owner.controller === true);
}

/** What audit keeps of the objects it does not lint, to attribute runtime evidence to the workloads it does. */
export interface OwnedObjects {
  pods: PodSummary[];
  /** Jobs owned by a CronJob. */
  jobs: KubeObject[];
}

/**
 * Lists every workload kind (paginated, each list through the guard); namespace undefined means all.
 * With `owned`, every Pod's summary and the CronJobs' Jobs are kept there too.
 */
export async function listWorkloads(
  client: KubeClient,
  guard: CallGuard,
  namespace: string | undefined,
  owned?: OwnedObjects,
  progress?: ProgressListener,
): Promise<KubeObject[]> {
  const objects: KubeObject[] = [];
  for (const [index, workload] of WORKLOADS.entries()) {
    progress?.({
      task: 'listing {count} kinds of workloads',
      done: index,
      total: WORKLOADS.length,
      current: `${workload.resource}, ${objects.length} objects so far`,
    });
    const path =
      namespace === undefined ? `${workload.base}/${workload.resource}` : `${workload.base}/namespaces/${encodeURIComponent(namespace)}/${workload.resource}`;
    await guard.run(`list ${workload.resource}`, (signal, answered) =>
      client.listPaged<KubeObject>(
        path,
        {},
        signal,
        (items) => {
          for (const listed of items) {
            // An item that is not an object (a hostile or broken answer) is linted as an object with nothing in it.
            const item: KubeObject = isObject(listed) ? listed : ({} as KubeObject);
            if (owned !== undefined && workload.kind === 'Pod') owned.pods.push(podSummary(item));
            if ((workload.kind === 'Pod' || workload.kind === 'Job') && isOwnedByController(item)) {
              if (owned !== undefined && workload.kind === 'Job')
                owned.jobs.push({ apiVersion: 'batch/v1', kind: 'Job', metadata: keptMetadata(item.metadata ?? {}) });
              continue;
            }
            // List items carry no apiVersion and kind; the engine needs both.
            objects.push(toLint(item, workload.apiVersion, workload.kind));
          }
        },
        answered,
      ),
    );
  }
  return objects;
}
