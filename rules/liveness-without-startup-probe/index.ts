import type { Probe } from 'kubernetes-types/core/v1.js';
import { cloneJson, defineRule, effective, ruleOption, joinPointer, PROBED_CONTAINERS, product, productText, secondsToAct } from '../../src/rule-api.js';

interface Options {
  minInitialDelaySeconds: number;
}

const rule = defineRule<Options>({
  meta: {
    id: 'liveness-without-startup-probe',
    severity: 'info',
    summary: 'a liveness probe with a long initialDelaySeconds and no startupProbe',
    remediation:
      'Add a startupProbe with the liveness check whose failureThreshold × periodSeconds covers the slowest start, and set the liveness initialDelaySeconds to 0.',
    scope: PROBED_CONTAINERS,
    timing: true,
    fix: 'suggestion',
    options: {
      defaults: { minInitialDelaySeconds: 30 },
      schema: {
        minInitialDelaySeconds: {
          type: 'integer',
          minimum: 1,
          description: 'A liveness initialDelaySeconds at or above this, without a startupProbe, is flagged.',
        },
      },
    },
    admission: {
      optIn: {
        configKey: 'injectStartupProbe',
        label: 'probe-lint.dev/inject-startup-probe',
        description: "Inject a startup probe (this rule's fix) into Pods at admission.",
      },
    },
    policy: {
      over: 'probed',
      problems: (message) =>
        `${slowStart('c')} ? [${message('slowStart', { delay: delay('c'), startupWindow: productText(startupThreshold('c'), period('c')) })}] : []`,
      mutation: { needed: slowStart, patches: startupPatches },
    },
    messages: {
      slowStart: {
        short: 'liveness waits {delay} s per start with no startupProbe; add one ({startupWindow}) and set the delay to 0',
        long:
          'livenessProbe waits initialDelaySeconds {delay} s on every start and there is no startupProbe: a container that hangs early is not ' +
          'restarted for {delay} s, and one that needs more than {delay} s + {threshold} × {period} s = {budget} s to start ' +
          'is killed before it is up, again and again. Add a startupProbe with the same check ' +
          '(failureThreshold × periodSeconds = {startupWindow}) and set the liveness delay to 0.',
      },
    },
  },
  checkContainer({ container, probe, timedProbe, options, report }) {
    const liveness = timedProbe('liveness');
    if (liveness === undefined || probe('startup') !== undefined || liveness.handlerKinds.length !== 1) return;
    const delay = liveness.initialDelaySeconds;
    if (delay < options.minInitialDelaySeconds) return;
    // Keep the longest start the old settings tolerated: the delay, plus liveness's own window for a
    // container that is not listening yet (it fails at once: connection refused).
    const budget = delay + secondsToAct(liveness, 'fast');
    const failureThreshold = Math.ceil(budget / liveness.periodSeconds);
    const kind = liveness.handlerKind!;
    const startupProbe: Probe = { [kind]: cloneJson(liveness.raw[kind]), periodSeconds: liveness.periodSeconds, failureThreshold };
    if (liveness.raw.timeoutSeconds) startupProbe.timeoutSeconds = liveness.raw.timeoutSeconds;
    report({
      messageId: 'slowStart',
      data: {
        delay,
        threshold: liveness.failureThreshold,
        period: liveness.periodSeconds,
        budget,
        startupWindow: product(failureThreshold, liveness.periodSeconds),
      },
      pointer: joinPointer(liveness.pointer, 'initialDelaySeconds'),
      fix: [
        { op: 'add', path: joinPointer(container.pointer, 'startupProbe'), value: startupProbe },
        { op: 'add', path: joinPointer(liveness.pointer, 'initialDelaySeconds'), value: 0 },
      ],
    });
  },
});
export default rule;

// The same check and the same startupProbe as above, as CEL for the admission policies.
// (Function declarations: the rule's meta above calls them while the module loads.)
function liveness(c: string): string {
  return `${c}.livenessProbe`;
}

function delay(c: string): string {
  return effective(liveness(c), 'initialDelaySeconds');
}

function period(c: string): string {
  return effective(liveness(c), 'periodSeconds');
}

/** failureThreshold of the startupProbe: ceil((delay + threshold × period) ÷ period). */
function startupThreshold(c: string): string {
  return `((${delay(c)} + ${effective(liveness(c), 'failureThreshold')} * ${period(c)} + ${period(c)} - 1) / ${period(c)})`;
}

function slowStart(c: string): string {
  return `(has(${c}.livenessProbe) && !has(${c}.startupProbe) && ${delay(c)} >= ${ruleOption(rule.meta, 'minInitialDelaySeconds')})`;
}

function startupPatches(c: string, path: string, type: string): string[] {
  const l = liveness(c);
  const probe =
    `${type}.startupProbe{?exec: ${l}.?exec, ?httpGet: ${l}.?httpGet, ?tcpSocket: ${l}.?tcpSocket, ?grpc: ${l}.?grpc, ` +
    `periodSeconds: ${period(c)}, failureThreshold: ${startupThreshold(c)}, timeoutSeconds: ${effective(l, 'timeoutSeconds')}}`;
  return [
    `JSONPatch{op: 'add', path: ${path} + '/startupProbe', value: ${probe}}`,
    `JSONPatch{op: 'add', path: ${path} + '/livenessProbe/initialDelaySeconds', value: 0}`,
  ];
}
