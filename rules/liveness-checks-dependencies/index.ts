import {
  actWindow,
  aggregateEndpoint,
  bind,
  celString,
  DEFAULT_ENDPOINTS,
  defineRule,
  execCommand,
  findingEvidence,
  joinPointer,
  podsKilledTogether,
  PROBED_CONTAINERS,
  remoteHost,
  windowText,
  writtenEnv,
  type CelMessages,
  type ContainerEvidence,
  type EffectiveProbe,
  type PodSite,
} from '../../src/rule-api.js';

/** What follows a dependency down, by the probe that checks it. */
const CONSEQUENCE = { liveness: 'every replica restarts', startup: 'no new container starts' } as const;

type Judged = keyof typeof CONSEQUENCE;

type MessageId = 'endpoint' | 'configuredEndpoint' | 'execHost';

export default defineRule<Record<string, never>, MessageId>({
  meta: {
    id: 'liveness-checks-dependencies',
    severity: 'warning',
    severityNote: 'A startupProbe that checks a dependency is an info: it holds back containers that start, not the ones running.',
    summary: 'a liveness or startup probe whose check reaches a database, a cache or another service',
    remediation:
      "Check only the process itself in livenessProbe (the framework's liveness endpoint, a local port or file), and keep the dependencies in readinessProbe.",
    // A pod that runs to completion serves nothing worth protecting: a restart only retries its work.
    scope: { ...PROBED_CONTAINERS, longRunningOnly: true },
    timing: true,
    fix: 'suggestion',
    policy: {
      over: 'longRunningProbed',
      problems: (message) => endpointProblems(message, 'liveness'),
      infoProblems: (message) => endpointProblems(message, 'startup'),
      unexpressed: ['configuredEndpoint', 'execHost'],
      limits:
        "The CEL knows the frameworks' default paths; the engine also follows the paths a container's env variables set, and reads exec commands (shell scripts included) for the hosts they contact.",
    },
    messages: {
      endpoint: {
        short: '{field} checks dependencies ({endpoint}: {what}); when one is down, {consequence}. Use {liveness}',
        long: "{field} requests {endpoint}, {what}: {checks}. {whenDown} {actWindow} {afterwards} Probe {liveness} instead, {framework}'s liveness endpoint, and keep the dependencies in readinessProbe.{cascade}",
      },
      configuredEndpoint: {
        short: '{field} checks dependencies ({endpoint}: {what}); when one is down, {consequence}. Use {liveness}',
        long: "{field} requests {endpoint}, {what} at the path {variables} set: {checks}. {whenDown} {actWindow} {afterwards} Probe {liveness} instead, {framework}'s liveness endpoint, and keep the dependencies in readinessProbe.{cascade}",
      },
      execHost: {
        short: '{field} checks {host} ({program}); when it is down, {consequence}. Check the process only',
        long: '{field} runs {program} against {host}, another host. {whenDown} {actWindow} {afterwards} Check only the container itself (its own port, a file, a local command) and move the check of {host} to readinessProbe.{cascade}',
      },
    },
  },
  checkContainer({ timedProbe, spec, site, evidence, evidenceWindow, budget, report }) {
    for (const type of ['startup', 'liveness'] as const) {
      const probe = timedProbe(type);
      if (probe === undefined) continue;
      const severity = type === 'startup' ? ({ severity: 'info' } as const) : {};
      const cascade = type === 'liveness' ? cascadeText(probe, evidence, evidenceWindow) : '';
      const common = { field: `${type}Probe`, consequence: CONSEQUENCE[type], cascade };
      // What audit saw goes with the finding it confirms (--format json).
      const seen = cascade !== '' && evidence !== undefined ? { evidence: findingEvidence(evidence) } : {};
      const httpGet = probe.raw.httpGet;
      // A probe of another host is http-probe-host's.
      if (probe.handlerKind === 'httpGet' && typeof httpGet?.path === 'string' && (httpGet.host ?? '') === '') {
        const endpoint = aggregateEndpoint(httpGet.path, writtenEnv(spec));
        if (endpoint === undefined) continue;
        const pointer = joinPointer(probe.pointer, 'httpGet', 'path');
        report({
          messageId: endpoint.configuredBy.length === 0 ? 'endpoint' : 'configuredEndpoint',
          ...severity,
          data: {
            ...common,
            endpoint: httpGet.path,
            what: endpoint.what,
            checks: endpoint.checks,
            framework: endpoint.framework,
            liveness: endpoint.liveness,
            variables: endpoint.configuredBy.join(', '),
            ...outcome(type, probe, site, 'one of them'),
          },
          pointer,
          fix: [{ op: 'replace', path: pointer, value: endpoint.liveness }],
          ...seen,
        });
      } else if (probe.handlerKind === 'exec') {
        const found = remoteHost(execCommand(probe, spec), budget);
        if (found === undefined) continue;
        report({
          messageId: 'execHost',
          ...severity,
          data: { ...common, host: found.host, program: found.program, ...outcome(type, probe, site, found.host) },
          pointer: joinPointer(probe.pointer, 'exec', 'command', String(found.commandIndex)),
          ...seen,
        });
      }
    }
  },
});

/**
 * What the kubelet does when the dependency is down, around the window it acts in: from the first
 * check that fails at once to the last that hangs until its timeout (a database that is down refuses
 * or answers an error; one that is unreachable lets the check hang).
 */
function outcome(type: Judged, probe: EffectiveProbe, site: PodSite, dependency: string): { whenDown: string; actWindow: string; afterwards: string } {
  const delay = type === 'startup' ? probe.initialDelaySeconds : 0;
  const window = windowText({ fromSeconds: actWindow(probe, 'fast', delay).fromSeconds, toSeconds: actWindow(probe, 'hanging', delay).toSeconds });
  if (type === 'startup') {
    return {
      whenDown: `While ${dependency} is down, every container that starts fails this check and is killed`,
      actWindow: window,
      afterwards: 'after it starts, again and again, though nothing is wrong with it.',
    };
  }
  const replicas = replicasOf(site);
  return {
    whenDown: `When ${dependency} is down, ${replicas.who} ${replicas.plural ? 'fail liveness together and are' : 'fails liveness and is'} restarted`,
    actWindow: window,
    afterwards:
      "later: a restart does not bring a dependency back, the restarts add load while it recovers, and PodDisruptionBudgets do not prevent it (they limit evictions, not the kubelet's restarts).",
  };
}

/** Who fails together: the workload's replicas as written. */
function replicasOf(site: PodSite): { who: string; plural: boolean } {
  const kind = site.resource.object.kind;
  if (kind === 'Pod') return { who: 'the pod', plural: false };
  if (kind === 'DaemonSet') return { who: 'the pods on every node', plural: true };
  const replicas = (site.resource.object as { spec?: { replicas?: unknown } }).spec?.replicas;
  if (replicas === 2) return { who: 'both replicas', plural: true };
  if (typeof replicas === 'number' && Number.isInteger(replicas) && replicas > 2) return { who: `all ${replicas} replicas`, plural: true };
  return { who: 'every replica', plural: false };
}

/** What audit saw: replicas the kubelet restarted for failed liveness within one window of each other. */
function cascadeText(probe: EffectiveProbe, evidence: ContainerEvidence | undefined, evidenceWindow: string | undefined): string {
  if (evidence === undefined) return '';
  const span = actWindow(probe, 'hanging').toSeconds - actWindow(probe, 'fast').fromSeconds + 1;
  const together = podsKilledTogether(evidence, span);
  if (together.pods < 2) return '';
  return ` It happened: in the last ${evidenceWindow!}, the kubelet restarted this container in ${together.pods} pods for failed liveness within ${together.withinSeconds} s of each other.`;
}

/** The frameworks' default paths in CEL, for the probe of `type` (the engine's first judgement, where no env variable moves them). */
function endpointProblems(message: CelMessages<'endpoint'>, type: Judged): string {
  const probe = `c.${type}Probe`;
  const path = `${probe}.httpGet.path`;
  const cases = DEFAULT_ENDPOINTS.map((endpoint) => {
    const moved = `(has(c.env) && c.env.exists(e, e.name in [${endpoint.variables.map(celString).join(', ')}]))`;
    const said = message('endpoint', {
      field: celString(`${type}Probe`),
      endpoint: path,
      what: celString(endpoint.what),
      consequence: celString(CONSEQUENCE[type]),
      liveness: celString(endpoint.liveness),
    });
    return { test: `bare.matches(${celString(endpoint.pattern)}) && !${moved}`, said };
  });
  const chain = cases.reduceRight((otherwise, { test, said }) => `${test} ? [${said}] : ${otherwise}`, '[]');
  return `has(${probe}) && has(${probe}.httpGet) && !has(${probe}.httpGet.host) && has(${path}) ? ${bind('bare', `${path}.split('?')[0].split('#')[0]`, chain)} : []`;
}
