// The alpha feature gates that guard probe fields in Kubernetes 1.37 (pkg/features/kube_features.go).
// Where a gate is off the API server drops its field before validation (pkg/api/pod/util.go), so
// which gates a cluster has on decides both whether the field works and whether a bad value is
// refused: one setting, `cluster.featureGates`, that every rule reads.

export const PROBE_FEATURE_GATES = ['H2CContainerProbe', 'GRPCContainerProbeTLS'] as const;

export type ProbeFeatureGate = (typeof PROBE_FEATURE_GATES)[number];
