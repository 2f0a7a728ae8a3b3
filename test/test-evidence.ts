// The runtime evidence a fixture gives in a `# test-evidence:` comment: what audit would have read
// from the cluster, for rule fixtures and fix fixtures alike.
import { EvidenceMap, type ContainerEvidence, type ProbeField, type ProbeMeasurement } from '../src/engine/runtime-evidence.js';

/**
 * `# test-evidence: {"Kind/namespace/name/container": {...}}` (in a README: `(test-evidence): {...}`) gives the runtime evidence audit would
 * have read for those containers (the counts of src/engine/runtime-evidence.ts, unset ones 0; lastLivenessKill as {"pod": "RFC 3339 time"}),
 * over the window "1h".
 */
export function evidenceOf(text: string): EvidenceMap | undefined {
  const match = /test-evidence\)?: (\{.*\})/.exec(text);
  if (!match) return undefined;
  const evidence = new EvidenceMap('1h');
  type GivenMeasurement = Omit<ProbeMeasurement, 'buckets' | 'duration'> & { buckets: Record<string, number>; duration?: ProbeMeasurement['duration'] };
  type GivenEvidence = Partial<Omit<ContainerEvidence, 'lastLivenessKill' | 'probeMetrics'>> & {
    lastLivenessKill?: Record<string, string>;
    probeMetrics?: Partial<Record<ProbeField, GivenMeasurement>>;
  };
  for (const [key, given] of Object.entries(JSON.parse(match[1]!) as Record<string, GivenEvidence>)) {
    const [kind, namespace, name, container] = key.split('/') as [string, string, string, string];
    const entry = evidence.entry({ kind, namespace: namespace || undefined, name }, container);
    // Liveness kills per Pod are given as {"pod": "2026-12-04T10:00:05Z"}.
    const lastLivenessKill = new Map(Object.entries(given.lastLivenessKill ?? {}).map(([pod, at]) => [pod, Date.parse(at)] as const));
    // Probe metrics' buckets are given as {"0.5": 10, "+Inf": 12}, cumulative as the kubelet exports them; duration ({sumSeconds, count}) is optional.
    const probeMetrics = Object.fromEntries(
      Object.entries(given.probeMetrics ?? {}).map(([probe, measured]) => [
        probe,
        {
          duration: { sumSeconds: 0, count: 0 },
          ...measured,
          buckets: new Map(Object.entries(measured.buckets).map(([bound, count]) => [bound === '+Inf' ? Infinity : Number(bound), count] as const)),
        },
      ]),
    );
    Object.assign(entry, {
      ...given,
      unhealthy: { ...entry.unhealthy, ...given.unhealthy },
      ignored: { ...entry.ignored, ...given.ignored },
      lastFailure: { ...given.lastFailure },
      lastLivenessKill,
      probeMetrics,
    });
  }
  return evidence;
}
