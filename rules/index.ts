// The one list of rules. Adding a rule: create rules/<id>/ (index.ts, README.md, fixtures) and add it here;
// test/rule-registry.test.ts fails if a folder is missing from this list.
import type { Rule } from '../src/engine/rule.js';
import duplicateKey from './duplicate-key/index.js';
import execProbeDenseCluster from './exec-probe-dense-cluster/index.js';
import grpcNamedPort from './grpc-named-port/index.js';
import httpProbeHost from './http-probe-host/index.js';
import initContainerProbe from './init-container-probe/index.js';
import livenessMirrorsReadiness from './liveness-mirrors-readiness/index.js';
import livenessWithoutStartupProbe from './liveness-without-startup-probe/index.js';
import missingLivenessProbe from './missing-liveness-probe/index.js';
import missingReadinessProbe from './missing-readiness-probe/index.js';
import probeFieldInvalid from './probe-field-invalid/index.js';
import probeHandlerCount from './probe-handler-count/index.js';
import probePortNotDeclared from './probe-port-not-declared/index.js';
import readinessTerminationGracePeriod from './readiness-termination-grace-period/index.js';
import successThresholdNotOne from './success-threshold-not-one/index.js';
import timeoutNotBelowPeriod from './timeout-not-below-period/index.js';

export const RULES: readonly Rule[] = [
  readinessTerminationGracePeriod,
  probeHandlerCount,
  probeFieldInvalid,
  successThresholdNotOne,
  probePortNotDeclared,
  grpcNamedPort,
  initContainerProbe,
  timeoutNotBelowPeriod,
  livenessMirrorsReadiness,
  execProbeDenseCluster,
  httpProbeHost,
  livenessWithoutStartupProbe,
  missingReadinessProbe,
  missingLivenessProbe,
  duplicateKey,
];
