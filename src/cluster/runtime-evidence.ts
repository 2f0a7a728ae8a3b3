// Runtime evidence for `probe-lint audit`: what the kubelet did with each container's probes, read
// from the Pods' statuses (restartCount) and the Events of the window (events.k8s.io/v1, paged):
// `Unhealthy` per probe (and `ProbeFailureIgnored`, a later kubelet's failures below the threshold),
// `Killing` for a failed liveness or startup probe, `BackOff`. Each is
// attributed to the workload that owns the Pod — a Deployment's evidence is one entry, not one per
// Pod — so the engine's rules can read it beside the workload's spec. Only counts and the latest
// failure message per probe are kept: memory follows workloads, not Pods or Events.
import { evidenceKey, EvidenceMap, recordLivenessKill, type ProbeField } from '../engine/runtime-evidence.js';
import type { KubeObject } from '../model/resource.js';
import type { CallGuard } from './call-guard.js';
import type { KubeClient } from './kube-client.js';

/** What audit keeps of each Pod: where it belongs and its containers' restart counts. */
export interface PodSummary {
  namespace: string;
  name: string;
  owner: { kind: string; name: string } | undefined;
  templateHash: string | undefined;
  /** The node it runs on (spec.nodeName), where its probes are measured. */
  nodeName: string | undefined;
  restarts: { name: string; restartCount: number }[];
}

export function podSummary(pod: KubeObject): PodSummary {
  const metadata = pod.metadata ?? {};
  const owner = (metadata.ownerReferences ?? []).find((reference) => reference.controller === true);
  const nodeName = (pod as { spec?: { nodeName?: unknown } }).spec?.nodeName;
  const status = (pod as { status?: { containerStatuses?: unknown; initContainerStatuses?: unknown } }).status;
  const statuses = [status?.containerStatuses, status?.initContainerStatuses].flatMap((list) => (Array.isArray(list) ? (list as unknown[]) : []));
  return {
    namespace: metadata.namespace ?? '',
    name: metadata.name ?? '',
    owner: owner && typeof owner.kind === 'string' && typeof owner.name === 'string' ? { kind: owner.kind, name: owner.name } : undefined,
    templateHash: typeof metadata.labels?.['pod-template-hash'] === 'string' ? metadata.labels['pod-template-hash'] : undefined,
    nodeName: typeof nodeName === 'string' && nodeName !== '' ? nodeName : undefined,
    restarts: statuses.flatMap((entry) => {
      const { name, restartCount } = (entry ?? {}) as { name?: unknown; restartCount?: unknown };
      return typeof name === 'string' && typeof restartCount === 'number' && Number.isFinite(restartCount) ? [{ name, restartCount }] : [];
    }),
  };
}

interface WorkloadRef {
  kind: string;
  namespace: string;
  name: string;
}

/** Resolves a Pod to the audited workload that owns it (Deployment through its ReplicaSet, CronJob through its Job). */
export class Owners {
  private readonly workloads = new Set<string>();
  private readonly jobOwners = new Map<string, string>();
  private readonly pods = new Map<string, PodSummary>();

  constructor(objects: readonly KubeObject[], jobs: readonly KubeObject[], pods: readonly PodSummary[]) {
    for (const object of objects) this.workloads.add(`${object.kind}/${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`);
    for (const job of jobs) {
      const owner = (job.metadata?.ownerReferences ?? []).find((reference) => reference.controller === true && reference.kind === 'CronJob');
      if (owner?.name) this.jobOwners.set(`${job.metadata?.namespace ?? ''}/${job.metadata?.name ?? ''}`, owner.name);
    }
    for (const pod of pods) this.pods.set(`${pod.namespace}/${pod.name}`, pod);
  }

  /** Whether the Pod is one of the current ones (its status was read). */
  hasPod(namespace: string, name: string): boolean {
    return this.pods.has(`${namespace}/${name}`);
  }

  private audited(kind: string, namespace: string, name: string): WorkloadRef | undefined {
    return this.workloads.has(`${kind}/${namespace}/${name}`) ? { kind, namespace, name } : undefined;
  }

  /** The workload of a Pod; for a Pod that is gone, guessed from its name the way controllers name Pods. */
  of(namespace: string, podName: string): WorkloadRef | undefined {
    const pod = this.pods.get(`${namespace}/${podName}`);
    if (pod === undefined) return this.guess(namespace, podName);
    const owner = pod.owner;
    if (owner === undefined) return this.audited('Pod', namespace, podName);
    if (owner.kind === 'ReplicaSet') {
      // A Deployment's ReplicaSet is named <deployment>-<pod-template-hash>.
      const suffix = pod.templateHash === undefined ? undefined : `-${pod.templateHash}`;
      return suffix !== undefined && owner.name.endsWith(suffix) ? this.audited('Deployment', namespace, owner.name.slice(0, -suffix.length)) : undefined;
    }
    if (owner.kind === 'Job') {
      const cronJob = this.jobOwners.get(`${namespace}/${owner.name}`);
      return cronJob === undefined ? this.audited('Job', namespace, owner.name) : this.audited('CronJob', namespace, cronJob);
    }
    return this.audited(owner.kind, namespace, owner.name);
  }

  /** <deployment>-<hash>-<id>, <statefulset>-<ordinal>, <daemonset>-<id>, <job>-<id>: the longest audited prefix wins. */
  private guess(namespace: string, podName: string): WorkloadRef | undefined {
    const parts = podName.split('-');
    for (let cut = 1; cut <= Math.min(2, parts.length - 1); cut++) {
      const prefix = parts.slice(0, -cut).join('-');
      for (const kind of cut === 2 ? ['Deployment'] : ['StatefulSet', 'DaemonSet', 'Job']) {
        const found = this.audited(kind, namespace, prefix);
        if (found) return found;
      }
    }
    return this.audited('Pod', namespace, podName);
  }
}

/** The parts of an events.k8s.io/v1 Event read here (the kubelet's core/v1 Events read the same way). */
interface KubeEvent {
  reason?: string;
  note?: string;
  regarding?: { kind?: string; namespace?: string; name?: string; fieldPath?: string };
  series?: { count?: number; lastObservedTime?: string };
  deprecatedCount?: number;
  deprecatedLastTimestamp?: string;
  eventTime?: string;
  metadata?: { namespace?: string; creationTimestamp?: string };
}

const PROBE_OF_WORD: Record<string, ProbeField> = { Liveness: 'livenessProbe', Readiness: 'readinessProbe', Startup: 'startupProbe' };

/** How many times an event happened: its series count, else its deprecated count, else once. */
function occurrences(event: KubeEvent): number {
  const count = event.series?.count ?? event.deprecatedCount ?? 1;
  return Number.isInteger(count) && count > 0 ? Math.min(count, 1_000_000) : 1;
}

/** When it last happened, in epoch ms (NaN when the event says nothing usable). */
function lastSeen(event: KubeEvent): number {
  return Date.parse(event.series?.lastObservedTime ?? event.deprecatedLastTimestamp ?? event.eventTime ?? event.metadata?.creationTimestamp ?? '');
}

/** `spec.containers{app}` → app. */
function containerOf(fieldPath: string | undefined): string | undefined {
  return /^spec\.(?:initContainers|containers|ephemeralContainers)\{([^}]+)\}$/.exec(fieldPath ?? '')?.[1];
}

/**
 * A probe failure's note in each shape a kubelet writes it: "Liveness probe failed: …" (1.37 and
 * before, every failure alike), and "Liveness probe failed (1/3, will be ignored): …" or
 * "(3/3): …" (kubernetes/kubernetes#140417): the probe, whether the kubelet said it ignored this
 * one, and the note without the count (what the message quotes).
 */
function probeFailure(note: string): { probe: ProbeField; ignored: boolean; note: string } | undefined {
  const word = note.split(' ', 1)[0] ?? '';
  // Own keys only: a note may begin with "constructor".
  const probe = Object.hasOwn(PROBE_OF_WORD, word) ? PROBE_OF_WORD[word] : undefined;
  if (probe === undefined) return undefined;
  const counted = /^(\S+ probe \S+) \((\d+)\/(\d+)(, will be ignored)?\)/.exec(note);
  if (counted === null) return { probe, ignored: false, note };
  const ignored = counted[4] !== undefined || Number(counted[2]) < Number(counted[3]);
  return { probe, ignored, note: `${counted[1]}${note.slice(counted[0].length)}` };
}

/** Where a counted event belongs: the workload, its container, and the Pod the event named. */
interface Attribution {
  workload: WorkloadRef;
  container: string;
  namespace: string;
  pod: string;
}

/** Adds one event to the evidence; undefined when it is not about a probe of an audited workload's container. */
export function addEvent(evidence: EvidenceMap, owners: Owners, event: KubeEvent, sinceMs: number): Attribution | undefined {
  const reason = event.reason;
  if (reason !== 'Unhealthy' && reason !== 'ProbeFailureIgnored' && reason !== 'Killing' && reason !== 'BackOff') return undefined;
  if (event.regarding?.kind !== 'Pod' || !(lastSeen(event) >= sinceMs)) return undefined;
  const container = containerOf(event.regarding.fieldPath);
  const namespace = event.regarding.namespace ?? event.metadata?.namespace ?? '';
  const pod = event.regarding.name;
  const workload = container === undefined || pod === undefined ? undefined : owners.of(namespace, pod);
  if (workload === undefined || container === undefined || pod === undefined) return undefined;
  // After ten different messages for one container in ten minutes, the kubelet's event correlator
  // combines them: the count is then the combined event's, the message its latest one's.
  const note = (typeof event.note === 'string' ? event.note : '').replace(/^\(combined from similar events\): /, '');
  const count = occurrences(event);
  if (reason === 'Unhealthy' || reason === 'ProbeFailureIgnored') {
    const failure = probeFailure(note);
    if (failure === undefined) return undefined;
    const entry = evidence.entry(workload, container);
    entry.unhealthy[failure.probe] += count;
    if (reason === 'ProbeFailureIgnored' || failure.ignored) entry.ignored[failure.probe] += count;
    entry.lastFailure[failure.probe] = failure.note;
    return { workload, container, namespace, pod };
  }
  // Killing is also "Stopping container app" (a deletion): only a failed probe counts.
  const kill =
    reason === 'Killing' ? (/failed liveness probe/.test(note) ? 'livenessKills' : /failed startup probe/.test(note) ? 'startupKills' : undefined) : 'backOff';
  if (kill === undefined) return undefined;
  const entry = evidence.entry(workload, container);
  entry[kill] += count;
  if (kill === 'livenessKills') recordLivenessKill(entry, `${namespace}/${pod}`, lastSeen(event));
  return { workload, container, namespace, pod };
}

/**
 * How many Pods each workload's evidence came from: its current Pods by count (a number per key, not
 * a set of 150,000 names), and Pods that are gone, named only by an event, once each.
 */
class PodsSeen {
  private readonly current = new Map<string, number>();
  private readonly gone = new Map<string, Set<string>>();
  constructor(private readonly owners: Owners) {}
  addCurrent(workload: WorkloadRef, container: string): void {
    const key = evidenceKey(workload, container);
    this.current.set(key, (this.current.get(key) ?? 0) + 1);
  }
  addFromEvent({ workload, container, namespace, pod }: Attribution): void {
    if (this.owners.hasPod(namespace, pod)) return;
    const key = evidenceKey(workload, container);
    let pods = this.gone.get(key);
    if (pods === undefined) this.gone.set(key, (pods = new Set()));
    pods.add(pod);
  }
  apply(evidence: EvidenceMap): void {
    for (const [key, entry] of evidence.entries) entry.pods = (this.current.get(key) ?? 0) + (this.gone.get(key)?.size ?? 0);
  }
}

/**
 * Reads the window's Events (through the guard, by pages) and adds them and the Pods' restart counts
 * to the evidence of the workloads that own them.
 */
export async function collectEvidence(
  client: KubeClient,
  guard: CallGuard,
  scope: { namespace: string | undefined; since: { text: string; ms: number }; now: number },
  workloads: { owners: Owners; pods: readonly PodSummary[] },
): Promise<EvidenceMap> {
  const evidence = new EvidenceMap(scope.since.text);
  const owners = workloads.owners;
  const seen = new PodsSeen(owners);
  for (const pod of workloads.pods) {
    const workload = owners.of(pod.namespace, pod.name);
    if (workload === undefined) continue;
    for (const { name, restartCount } of pod.restarts) {
      // An entry only where there is something to say: most containers never restarted.
      if (restartCount > 0) evidence.entry(workload, name).restartCount += restartCount;
      seen.addCurrent(workload, name);
    }
  }
  const sinceMs = scope.now - scope.since.ms;
  const path =
    scope.namespace === undefined ? '/apis/events.k8s.io/v1/events' : `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(scope.namespace)}/events`;
  await guard.run('list events', (signal, answered) =>
    client.listPaged<KubeEvent>(
      path,
      { fieldSelector: 'regarding.kind=Pod' },
      signal,
      (events) => {
        for (const event of events) {
          const counted = addEvent(evidence, owners, event, sinceMs);
          if (counted !== undefined) seen.addFromEvent(counted);
        }
      },
      answered,
    ),
  );
  seen.apply(evidence);
  return evidence;
}

/** "30s", "15m", "1h", "2h30m", "7d" → milliseconds; undefined when it is not such a duration. */
export function parseWindow(text: string): number | undefined {
  const match = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!match || text === '') return undefined;
  const [days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number];
  const ms = (((days * 24 + hours) * 60 + minutes) * 60 + seconds) * 1000;
  return ms > 0 && ms <= 366 * 24 * 3600 * 1000 ? ms : undefined;
}
