/** What the engine knows about the cluster the manifests run in. */
export interface ClusterFacts {
  /** Mean pods per node, when known. */
  podsPerNode: number | undefined;
  /** A cluster is dense at or above this many pods per node. */
  densePodsPerNode: number;
  /** Where podsPerNode came from, for messages. */
  source: 'flag' | 'config' | 'cluster' | 'unknown';
}

export const DEFAULT_DENSE_PODS_PER_NODE = 50;

export function unknownCluster(densePodsPerNode = DEFAULT_DENSE_PODS_PER_NODE): ClusterFacts {
  return { podsPerNode: undefined, densePodsPerNode, source: 'unknown' };
}

export function densityOf(facts: ClusterFacts): 'dense' | 'sparse' | 'unknown' {
  if (facts.podsPerNode === undefined) return 'unknown';
  return facts.podsPerNode >= facts.densePodsPerNode ? 'dense' : 'sparse';
}
