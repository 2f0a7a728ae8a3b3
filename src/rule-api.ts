// The one module rules import: the rule contract, and the model's vocabulary for probes, timing
// and messages. A rule reads nothing else from src/ (the dependency check in .ci/run enforces it).
export { DEFAULT_DENSE_PODS_PER_NODE, densityOf, type ClusterFacts } from './engine/cluster-facts.js';
export {
  bucketQuantile,
  findingEvidence,
  meanDuration,
  metricsSourceText,
  podsKilledTogether,
  probeMetricEvidence,
  RUNTIME_POLICY,
  type ContainerEvidence,
  type ProbeField,
  type ProbeMeasurement,
} from './engine/runtime-evidence.js';
export {
  defineRule,
  PROBED_CONTAINERS,
  type CelMessages,
  type ContainerContext,
  type DocumentContext,
  type PatchOperation,
  type PodSiteContext,
  type Report,
  type Rule,
  type RulePolicy,
  type Severity,
} from './engine/rule.js';
export { closestMatch, didYouMean } from './engine/did-you-mean.js';
export { CONTAINER_FIELDS, unknownFields, type KnownType, type UnknownField } from './model/known-fields.js';
export { hasIgnoreAnnotation, ignoreAnnotations, IGNORE_ANNOTATION } from './engine/suppression.js';
export { describeValue, isInt32, isInt64, type DecodeIssue } from './model/decode.js';
export { counted, countText, failureConsequence, isDefaulted, product, quotedFromCluster, secondsText } from './model/describe.js';
export { PROBE_NUMBER_FIELDS, resolvePort, type EffectiveProbe, type ProbeType } from './model/effective-probe.js';
export type { ContainerSite, PodSite, RestartPolicy } from './model/pod-site.js';
export type { ProbeFeatureGate } from './model/feature-gates.js';
export { joinPointer } from './model/pointer.js';
export { ipFamily, isLoopback, unbracket } from './model/loopback.js';
export { cloneJson } from './model/json-value.js';
export { trimTrailing } from './model/trim-trailing.js';
export { checkIdentity, requestPath } from './model/probe-check.js';
export {
  basename,
  commandsRun,
  execCommand,
  expandVariables,
  firstUrlHost,
  goFlagValue,
  hasOption,
  optionValue,
  SHELLS,
  shellCommands,
  urlHost,
  writtenEnv,
  type SimpleCommand,
  type Word,
} from './model/exec-command.js';
export { WorkBudget, WorkBudgetExceeded } from './model/work-budget.js';
export { isRemote, remoteHost, type RemoteHost } from './model/exec-hosts.js';
export {
  aggregateEndpoint,
  barePath,
  DEFAULT_ENDPOINTS,
  type AggregateEndpoint,
  type DefaultEndpoint,
  type Framework,
  type HealthEndpoint,
} from './model/health-endpoints.js';
export { actWindow, intervalSeconds, secondsToAct, secondsToActText, windowText, type FailureMode } from './model/timing.js';
export { isTemplateParameter, isValidHeaderName, isValidPortName, isValidPortNumber } from './model/validation.js';
export { bind, celString, eachProbe, effective, greatest, intOption, productText, resolvedPort, ruleOption } from './engine/cel.js';
