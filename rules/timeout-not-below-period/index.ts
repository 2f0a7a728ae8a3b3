import {
  bind,
  celString,
  countText,
  defineRule,
  eachProbe,
  effective,
  failureConsequence,
  joinPointer,
  type PatchOperation,
  PROBED_CONTAINERS,
  secondsText,
  secondsToAct,
  secondsToActText,
  windowText,
  actWindow,
} from '../../src/rule-api.js';

/** How the check's own timeout behaves, by handler (kubelet prober.go, pkg/probe/*). */
const TIMEOUT_NOTES: Record<string, string> = {
  httpGet:
    ' (One exception: a timeout while reading the response body is an error, not a failure: the kubelet retries it up to 3 times and then ' +
    'throws the result away uncounted, so such a check may never count as failing at all.)',
  exec:
    ' (Exec timeouts are enforced since Kubernetes 1.20, the ExecProbeTimeout feature gate, locked on from 1.35; on a cluster that turned ' +
    'the gate off, a hanging exec check runs until it exits and the timeout means nothing.)',
  tcpSocket: '',
  grpc: '',
};

export default defineRule({
  meta: {
    id: 'timeout-not-below-period',
    severity: 'warning',
    summary: 'a probe whose effective timeoutSeconds is at or above its effective periodSeconds',
    remediation: 'Set timeoutSeconds below periodSeconds (for example periodSeconds − 1), or raise periodSeconds above the timeout.',
    scope: PROBED_CONTAINERS,
    timing: true,
    fix: 'suggestion',
    policy: {
      over: 'probed',
      problems: (message) =>
        eachProbe((p, field) => {
          const text = `[${message('notBelow', {
            field: celString(field),
            timeout: 'timeout',
            period: 'period',
            effect: `(timeout > period ? 'a hanging check acts after ' + string(threshold * timeout) + ' s, not ' + string(threshold * period) + ' s' : 'hanging checks run back to back')`,
            action: `(period > 1 ? 'set timeoutSeconds ≤ ' + string(period - 1) : 'raise periodSeconds')`,
          })}]`;
          return bind(
            'timeout',
            effective(p, 'timeoutSeconds'),
            bind('period', effective(p, 'periodSeconds'), bind('threshold', effective(p, 'failureThreshold'), `(timeout >= period ? ${text} : [])`)),
          );
        }),
    },
    messages: {
      notBelow: {
        short: '{field} timeout {timeout} s ≥ period {period} s: {effect}; {action}',
        long:
          '{field} timeoutSeconds {timeoutText} is not below periodSeconds {periodText}: probes never overlap, so a check that hangs until its ' +
          'timeout delays the next one: {consequence} after failureThreshold {thresholdText} × max(period, timeout) = {hangingText}{compare}, ' +
          '{hangingWindow} after the app starts hanging ({fastWindow} when a check fails at once).{note} {advice}',
      },
    },
  },
  checkContainer({ container, timedProbes, report }) {
    for (const probe of timedProbes) {
      if (probe.timeoutSeconds < probe.periodSeconds) continue;
      const fast = secondsToAct(probe, 'fast');
      // Stryker disable next-line StringLiteral: every mode but "fast" is read as hanging.
      const hanging = secondsToAct(probe, 'hanging');
      const suggested = probe.periodSeconds - 1;
      const fix: PatchOperation[] | undefined =
        suggested >= 1 ? [{ op: 'add', path: joinPointer(probe.pointer, 'timeoutSeconds'), value: suggested }] : undefined;
      report({
        messageId: 'notBelow',
        data: {
          field: probe.field,
          timeout: probe.timeoutSeconds,
          period: probe.periodSeconds,
          timeoutText: secondsText(probe, 'timeoutSeconds'),
          periodText: secondsText(probe, 'periodSeconds'),
          thresholdText: countText(probe, 'failureThreshold'),
          consequence: failureConsequence(probe, container.restartPolicy),
          effect: hanging > fast ? `a hanging check acts after ${hanging} s, not ${fast} s` : 'hanging checks run back to back',
          // Stryker disable next-line StringLiteral: every mode but "fast" is read as hanging.
          hangingText: secondsToActText(probe, 'hanging'),
          // Stryker disable next-line StringLiteral: every mode but "fast" is read as hanging.
          hangingWindow: windowText(actWindow(probe, 'hanging')),
          fastWindow: windowText(actWindow(probe, 'fast')),
          compare: hanging > fast ? `, not the ${secondsToActText(probe, 'fast')} the period suggests` : ', with no pause between probes',
          // Stryker disable next-line StringLiteral: no note is keyed by the empty string or by the replacement
          note: TIMEOUT_NOTES[probe.handlerKind ?? ''] ?? '',
          action: fix ? `set timeoutSeconds ≤ ${suggested}` : 'raise periodSeconds',
          advice: fix ? `Set timeoutSeconds below the period (e.g. ${suggested}).` : 'Raise periodSeconds above the timeout.',
        },
        pointer: joinPointer(probe.pointer, probe.raw.timeoutSeconds === undefined ? 'periodSeconds' : 'timeoutSeconds'),
        ...(fix ? { fix } : {}),
      });
    }
  },
});
