// Pods per node, from paginated lists of nodes and non-terminated pods. Only counts are kept:
// memory grows with the number of nodes, never with the number of pods.
import type { Node } from 'kubernetes-types/core/v1.js';
import type { ClusterFacts } from '../engine/cluster-facts.js';
import type { Clock } from './call-guard.js';
import type { KubeClient } from './kube-client.js';

export interface DensitySnapshot {
  /** List requests (pages) this refresh made. */
  listCalls: number;
  nodes: number;
  pods: number;
  meanPodsPerNode: number;
  p90PodsPerNode: number;
  /** Mean of pods ÷ allocatable pods over nodes that report a capacity. */
  meanCapacityFraction: number | undefined;
  fetchedAt: number;
}

export interface DensityThresholds {
  /** Dense at or above this mean pods per node. */
  densePodsPerNode: number;
  /** Or: dense at or above this mean fraction of each node's pod capacity. */
  denseCapacityFraction?: number;
}

/** A Table (meta.k8s.io/v1) as the API server prints `kubectl get -o wide`: column names and one row of cells per object. */
interface PodTable {
  columnDefinitions?: { name: string }[];
  rows?: { cells: unknown[] }[];
}

/**
 * Pods are listed as a Table without the objects (`includeObject=None`): the API server sends each
 * pod's printed columns, among them its node, and never its spec, env or anything else. Memory and
 * bandwidth grow with the number of pods only by a row each, and nothing secret is read.
 */
const POD_TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';

/** One refresh: lists nodes, then non-terminated pods, counting pods per node page by page (`answered` after each). */
export async function fetchDensity(client: KubeClient, signal: AbortSignal, clock: Clock, answered?: () => void): Promise<DensitySnapshot> {
  const capacity = new Map<string, number>();
  let listCalls = 0;
  await client.listPaged<Node>(
    '/api/v1/nodes',
    {},
    signal,
    (items) => {
      listCalls++;
      for (const node of items) {
        const name = node.metadata?.name;
        if (name !== undefined) capacity.set(name, Number(node.status?.allocatable?.pods ?? 0));
      }
    },
    answered,
  );
  const podsPerNode = new Map<string, number>();
  for (const name of capacity.keys()) podsPerNode.set(name, 0);
  let pods = 0;
  await client.listTablePaged<PodTable>(
    '/api/v1/pods',
    { fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed', includeObject: 'None' },
    POD_TABLE,
    signal,
    (page) => {
      listCalls++;
      const column = (page.columnDefinitions ?? []).findIndex((definition) => definition.name === 'Node');
      if (column === -1) throw new Error("the API server's pod table has no Node column");
      for (const row of page.rows ?? []) {
        const node = row.cells[column];
        if (typeof node !== 'string' || !podsPerNode.has(node)) continue; // unscheduled ("<none>"), or on a node that left
        podsPerNode.set(node, podsPerNode.get(node)! + 1);
        pods++;
      }
    },
    answered,
  );
  return { ...summarize(capacity, podsPerNode, pods, clock.now()), listCalls };
}

export function summarize(
  capacity: Map<string, number>,
  podsPerNode: Map<string, number>,
  pods: number,
  fetchedAt: number,
): Omit<DensitySnapshot, 'listCalls'> {
  const counts = [...podsPerNode.values()].sort((a, b) => a - b);
  const nodes = counts.length;
  const fractions = [...podsPerNode].filter(([node]) => (capacity.get(node) ?? 0) > 0).map(([node, count]) => count / capacity.get(node)!);
  return {
    nodes,
    pods,
    meanPodsPerNode: nodes === 0 ? 0 : pods / nodes,
    p90PodsPerNode: nodes === 0 ? 0 : counts[Math.min(nodes - 1, Math.ceil(nodes * 0.9) - 1)]!,
    meanCapacityFraction: fractions.length === 0 ? undefined : fractions.reduce((sum, value) => sum + value, 0) / fractions.length,
    fetchedAt,
  };
}

export function isDense(snapshot: DensitySnapshot, thresholds: DensityThresholds): boolean {
  if (thresholds.denseCapacityFraction !== undefined && snapshot.meanCapacityFraction !== undefined) {
    return snapshot.meanCapacityFraction >= thresholds.denseCapacityFraction;
  }
  return snapshot.meanPodsPerNode >= thresholds.densePodsPerNode;
}

export function factsFrom(snapshot: DensitySnapshot, thresholds: DensityThresholds): ClusterFacts {
  // A cluster without nodes (or whose nodes cannot be listed) says nothing about density.
  if (snapshot.nodes === 0) return { podsPerNode: undefined, densePodsPerNode: thresholds.densePodsPerNode, source: 'unknown' };
  return {
    podsPerNode: Math.round(snapshot.meanPodsPerNode * 10) / 10,
    densePodsPerNode: thresholds.densePodsPerNode,
    dense: isDense(snapshot, thresholds),
    source: 'cluster',
  };
}
