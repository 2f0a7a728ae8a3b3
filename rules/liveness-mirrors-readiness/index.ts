import {
  bind,
  checkIdentity,
  defineRule,
  effective,
  type FailureMode,
  greatest,
  intervalSeconds,
  joinPointer,
  PROBED_CONTAINERS,
  resolvedPort,
  secondsToAct,
  secondsToActText,
  windowText,
  actWindow,
  type CelMessages,
} from '../../src/rule-api.js';

const WHEN: Record<string, string> = {
  both: 'whether the check fails at once or hangs until its timeout',
  fast: 'when the check fails at once (refused, HTTP 500, exit 1)',
  hanging: 'when the check hangs until its timeout',
};

export default defineRule({
  meta: {
    id: 'liveness-mirrors-readiness',
    severity: 'warning',
    summary: 'liveness and readiness run the same check and liveness acts no later than readiness',
    remediation:
      'Make liveness check only that the process itself is alive (a separate, cheap endpoint), or raise its failureThreshold so that it acts well after readiness.',
    // A pod that runs to completion (a Job's, a CronJob's, a pod whose restartPolicy is not Always)
    // serves no Service traffic worth protecting: a liveness kill only retries its work, so the
    // cascade this rule is about cannot happen there. A container's own Never does not make it so.
    scope: { ...PROBED_CONTAINERS, longRunningOnly: true },
    timing: true,
    fix: 'suggestion',
    policy: {
      over: 'longRunningProbed',
      problems: (message) => mirrorProblems(message, 'c.livenessProbe', 'c.readinessProbe'),
      limits: "The CEL compares exec commands as written; the engine also expands $(VAR) from the container's env first, as the kubelet does.",
    },
    messages: {
      mirrors: {
        short: "liveness runs readiness's {handler} check and acts no later ({liveness} vs {readiness} s); raise its failureThreshold to {threshold}",
        long:
          'livenessProbe runs the same {handler} check as readinessProbe and acts no later {when} (liveness {livenessText}, readiness {readinessText}): ' +
          'when the app is slow or failing under load, it is restarted {livenessWindow} after it starts failing while it leaves the Service ' +
          'after {readinessWindow} (the probes run on timers of their own, so either may act first), and restarts cascade across replicas. ' +
          'Make liveness check only that the process is alive, or raise its failureThreshold to {threshold} or more.',
      },
      // The container's own restartPolicy Never (container restart rules, 1.35+) in a pod that keeps
      // running: the kill is not followed by a restart, and the Pod is not replaced either.
      mirrorsForGood: {
        short: "liveness mirrors readiness's {handler} check; with restartPolicy Never its kill is for good; set failureThreshold: {threshold}",
        long:
          'livenessProbe runs the same {handler} check as readinessProbe and acts no later {when} (liveness {livenessText}, readiness {readinessText}): ' +
          'when the app is slow or failing under load, it is killed {livenessWindow} after it starts failing while it leaves the Service after {readinessWindow}, ' +
          "and with the container's restartPolicy Never it is not restarted: the Pod stays, running without it, and the replica never serves again until the Pod is replaced by hand. " +
          'Make liveness check only that the process is alive, or raise its failureThreshold to {threshold} or more.',
      },
    },
  },
  checkContainer({ container, timedProbe, spec, report }) {
    const liveness = timedProbe('liveness');
    const readiness = timedProbe('readiness');
    if (liveness === undefined || readiness === undefined) return;
    // Stryker disable next-line ConditionalExpression: a shortcut; checks of two kinds never have one identity.
    if (liveness.handlerKind !== readiness.handlerKind) return;
    const identity = checkIdentity(liveness, spec);
    if (identity === undefined || identity !== checkIdentity(readiness, spec)) return;
    const modes = (['hanging', 'fast'] as const).filter((mode) => secondsToAct(liveness, mode) <= secondsToAct(readiness, mode));
    if (modes.length === 0) return;
    // The smallest threshold that makes liveness act strictly after readiness in both cases.
    const threshold = Math.max(
      ...(['fast', 'hanging'] as const).map((mode) => Math.floor(secondsToAct(readiness, mode) / intervalSeconds(liveness, mode)) + 1),
    );
    const shown: FailureMode = modes[0]!;
    report({
      messageId: container.restartPolicy === 'Never' ? 'mirrorsForGood' : 'mirrors',
      data: {
        // Stryker disable next-line StringLiteral: two probes that run the same check have a handler
        handler: liveness.handlerKind ?? '',
        when: WHEN[modes.length === 2 ? 'both' : shown]!,
        liveness: secondsToAct(liveness, shown),
        readiness: secondsToAct(readiness, shown),
        livenessText: secondsToActText(liveness, shown),
        readinessText: secondsToActText(readiness, shown),
        // The windows of a check that fails at once where that case applies: what a real kubelet showed (kubelet-measured.md).
        livenessWindow: windowText(actWindow(liveness, modes.includes('fast') ? 'fast' : shown)),
        readinessWindow: windowText(actWindow(readiness, modes.includes('fast') ? 'fast' : shown)),
        threshold,
      },
      pointer: liveness.pointer,
      fix: [{ op: 'add', path: joinPointer(liveness.pointer, 'failureThreshold'), value: threshold }],
    });
  },
});

/** The same check and timing comparison in CEL (the kubelet's view of a request: scheme case, path, header names, named ports). */
function mirrorProblems(message: CelMessages<'mirrors' | 'mirrorsForGood'>, l: string, r: string): string {
  const text = (probe: string, field: string, fallback: string) => `(has(${probe}.${field}) ? ${probe}.${field} : ${fallback})`;
  const path = (probe: string) => {
    const bare = `${text(`${probe}.httpGet`, 'path', "''")}.split('#')[0]`;
    return `(${bare} == '' ? '/' : ${bare}.startsWith('/') ? ${bare} : '/' + ${bare})`;
  };
  const headers = (probe: string) => text(`${probe}.httpGet`, 'httpHeaders', '[]');
  const sameHeader = (a: string, b: string) => `${b}.name.lowerAscii() == ${a}.name.lowerAscii() && ${text(b, 'value', "''")} == ${text(a, 'value', "''")}`;
  const sameCheck = [
    `(has(${l}.exec) && has(${r}.exec) && ${text(`${l}.exec`, 'command', '[]')} == ${text(`${r}.exec`, 'command', '[]')})`,
    `(has(${l}.httpGet) && has(${r}.httpGet) && ` +
      `${text(`${l}.httpGet`, 'scheme', "'HTTP'")}.lowerAscii() == ${text(`${r}.httpGet`, 'scheme', "'HTTP'")}.lowerAscii() && ` +
      `${text(`${l}.httpGet`, 'host', "''")} == ${text(`${r}.httpGet`, 'host', "''")} && ` +
      `${resolvedPort(`${l}.httpGet.port`)} == ${resolvedPort(`${r}.httpGet.port`)} && ${path(l)} == ${path(r)} && ` +
      `size(${headers(l)}) == size(${headers(r)}) && ${headers(l)}.all(a, ${headers(r)}.exists(b, ${sameHeader('a', 'b')})) && ` +
      `${headers(r)}.all(a, ${headers(l)}.exists(b, ${sameHeader('a', 'b')})))`,
    `(has(${l}.tcpSocket) && has(${r}.tcpSocket) && ${text(`${l}.tcpSocket`, 'host', "''")} == ${text(`${r}.tcpSocket`, 'host', "''")} && ` +
      `${resolvedPort(`${l}.tcpSocket.port`)} == ${resolvedPort(`${r}.tcpSocket.port`)})`,
    `(has(${l}.grpc) && has(${r}.grpc) && ${l}.grpc.port == ${r}.grpc.port && ${text(`${l}.grpc`, 'service', "''")} == ${text(`${r}.grpc`, 'service', "''")})`,
  ].join(' || ');
  // Bound once: the effective numbers of both probes, then the seconds each takes to act.
  const numbers = (body: string) =>
    bind(
      'lp',
      effective(l, 'periodSeconds'),
      bind(
        'lt',
        effective(l, 'timeoutSeconds'),
        bind(
          'lf',
          effective(l, 'failureThreshold'),
          bind('rp', effective(r, 'periodSeconds'), bind('rt', effective(r, 'timeoutSeconds'), bind('rf', effective(r, 'failureThreshold'), body))),
        ),
      ),
    );
  const [lHang, rHang] = [`(lf * ${greatest('lp', 'lt')})`, `(rf * ${greatest('rp', 'rt')})`];
  const threshold = greatest('(rf * rp / lp + 1)', `(${rHang} / ${greatest('lp', 'lt')} + 1)`);
  const handler = `(has(${l}.exec) ? 'exec' : has(${l}.httpGet) ? 'httpGet' : has(${l}.tcpSocket) ? 'tcpSocket' : 'grpc')`;
  // The hanging case is shown when it applies (as the engine shows it first), else the fast one.
  const hangs = `${lHang} <= ${rHang}`;
  const data = { handler, liveness: `(${hangs} ? ${lHang} : lf * lp)`, readiness: `(${hangs} ? ${rHang} : rf * rp)`, threshold };
  const said = `(has(c.restartPolicy) && c.restartPolicy == 'Never' ? ${message('mirrorsForGood', data)} : ${message('mirrors', data)})`;
  const report = `(${hangs} || lf * lp <= rf * rp ? [${said}] : [])`;
  return `has(${l}) && has(${r}) && (${sameCheck}) ? ${numbers(report)} : []`;
}
