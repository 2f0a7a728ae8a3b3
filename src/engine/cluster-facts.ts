/** What the engine knows about the cluster the manifests run in. */
export interface ClusterFacts {
  /** Mean pods per node, when known. */
  podsPerNode: number | undefined;
  /** A cluster is dense at or above this many pods per node. */
  densePodsPerNode: number;
  /** Set when density was judged otherwise (e.g. as a fraction of node capacity by the refresher). */
  dense?: boolean;
  /** Where podsPerNode came from, for messages. */
  source: 'flag' | 'config' | 'cluster' | 'unknown';
}

export const DEFAULT_DENSE_PODS_PER_NODE = 50;

export function unknownCluster(densePodsPerNode = DEFAULT_DENSE_PODS_PER_NODE): ClusterFacts {
  return { podsPerNode: undefined, densePodsPerNode, source: 'unknown' };
}

/** Where the engine reads cluster facts from on each lint: fixed facts, or a refresher's latest. */
export interface ClusterFactsSource {
  current(): ClusterFacts;
}

export function densityOf(facts: ClusterFacts): 'dense' | 'sparse' | 'unknown' {
  if (facts.podsPerNode === undefined) return 'unknown';
  if (facts.dense !== undefined) return facts.dense ? 'dense' : 'sparse';
  return facts.podsPerNode >= facts.densePodsPerNode ? 'dense' : 'sparse';
}
