// The one list of rules: one line per rule folder (test/rule-registry.test.ts fails if a folder is missing).
export { default as duplicateKey } from './duplicate-key/index.js';
export { default as execProbeDenseCluster } from './exec-probe-dense-cluster/index.js';
export { default as grpcNamedPort } from './grpc-named-port/index.js';
export { default as httpProbeHost } from './http-probe-host/index.js';
export { default as ignoreAnnotationUnknownRule } from './ignore-annotation-unknown-rule/index.js';
export { default as initContainerProbe } from './init-container-probe/index.js';
export { default as livenessMirrorsReadiness } from './liveness-mirrors-readiness/index.js';
export { default as livenessWithoutStartupProbe } from './liveness-without-startup-probe/index.js';
export { default as missingLivenessProbe } from './missing-liveness-probe/index.js';
export { default as missingReadinessProbe } from './missing-readiness-probe/index.js';
export { default as probeFieldInvalid } from './probe-field-invalid/index.js';
export { default as probeHandlerCount } from './probe-handler-count/index.js';
export { default as probePortNotDeclared } from './probe-port-not-declared/index.js';
export { default as readinessTerminationGracePeriod } from './readiness-termination-grace-period/index.js';
export { default as successThresholdNotOne } from './success-threshold-not-one/index.js';
export { default as timeoutNotBelowPeriod } from './timeout-not-below-period/index.js';
