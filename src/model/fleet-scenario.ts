// What `probe-lint simulate --scenario` takes: what goes wrong, with what, from when and for how long.
//
//   outage=TARGET:60s[:blackhole][@START]   a dependency refuses (checks that reach it fail at once),
//                                           or drops packets (they hang until their timeout)
//   slow=TARGET:1.5s:120s[@START]           checks that reach it take that long
//   hang=self:30s[@START]                   the app stops answering, across restarts
//
// Several are joined with commas. Every number is bounded, so no scenario makes a run unbounded.

export type ScenarioKind = 'outage' | 'slow' | 'hang';

export interface ScenarioPart {
  kind: ScenarioKind;
  /** A host or Service name the probes contact, or `self`. */
  target: string;
  /** Seconds from the scenario's start. */
  start: number;
  duration: number;
  /** outage: refused (checks fail at once) or blackhole (they hang to their timeout). */
  failure?: 'refused' | 'blackhole';
  /** slow: how long each check that reaches the target takes. */
  latency?: number;
}

export class ScenarioError extends Error {}

const MAX_PARTS = 8;
/** A day: a scenario longer than that is no incident the kubelet's back-off (capped at 300 s) says anything new about. */
const MAX_SECONDS = 86_400;
const DURATION = /^(\d{1,9}(?:\.\d{1,3})?)(ms|s|m|h)$/;
const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };
/** A DNS name, an IP address, or `self`: what a probe's command or URL could name. */
const TARGET = /^[A-Za-z0-9]([A-Za-z0-9.:_-]{0,252})$/;

/** Seconds of "60s", "1.5s", "2m", "500ms"; a ScenarioError naming `what` otherwise. */
export function parseDuration(text: string, what: string, minimum = 0.001): number {
  const match = DURATION.exec(text);
  if (match === null) throw new ScenarioError(`${what} "${text}" is not a duration: write it as 60s, 1.5s, 2m or 500ms`);
  const seconds = Math.round(Number(match[1]) * UNIT_SECONDS[match[2]!]! * 1000) / 1000;
  if (seconds < minimum || seconds > MAX_SECONDS) throw new ScenarioError(`${what} ${text} is out of range: between ${minimum} s and 24h`);
  return seconds;
}

export function parseScenario(spec: string): ScenarioPart[] {
  const parts = spec.split(',').map((part) => part.trim());
  if (parts.length > MAX_PARTS) throw new ScenarioError(`a scenario has at most ${MAX_PARTS} parts; this one has ${parts.length}`);
  return parts.map(parsePart);
}

function parsePart(text: string): ScenarioPart {
  const [body, start, ...more] = text.split('@');
  if (more.length > 0) throw new ScenarioError(`"${text}" has more than one @START`);
  const equals = body!.indexOf('=');
  const kind = body!.slice(0, equals);
  const fields = body!.slice(equals + 1).split(':');
  const startSeconds = start === undefined ? 0 : parseDuration(start, `the start of ${kind}`, 0);
  const target = fields[0] ?? '';
  if (kind !== 'outage' && kind !== 'slow' && kind !== 'hang')
    throw new ScenarioError(
      `"${text}" is no scenario: write outage=TARGET:60s[:blackhole], slow=TARGET:1.5s:120s or hang=self:30s, each with an optional @START`,
    );
  if (!TARGET.test(target)) throw new ScenarioError(`"${target}" is not a host, a Service name or self`);
  if (kind === 'hang') {
    if (target !== 'self' || fields.length !== 2) throw new ScenarioError(`hang takes self and a duration: hang=self:30s (got "${text}")`);
    return { kind, target, start: startSeconds, duration: parseDuration(fields[1]!, 'the hang', 1) };
  }
  if (target === 'self') throw new ScenarioError(`${kind} is of a dependency; the app itself is hang=self:30s`);
  if (kind === 'outage') {
    if (fields.length < 2 || fields.length > 3 || (fields[2] !== undefined && fields[2] !== 'blackhole' && fields[2] !== 'refused'))
      throw new ScenarioError(`outage takes a target, a duration and optionally blackhole: outage=db:60s or outage=db:60s:blackhole (got "${text}")`);
    return {
      kind,
      target,
      start: startSeconds,
      duration: parseDuration(fields[1]!, 'the outage', 1),
      failure: fields[2] === 'blackhole' ? 'blackhole' : 'refused',
    };
  }
  if (fields.length !== 3) throw new ScenarioError(`slow takes a target, the time each check takes and a duration: slow=db:1.5s:120s (got "${text}")`);
  return {
    kind,
    target,
    start: startSeconds,
    latency: parseDuration(fields[1]!, 'the latency', 0.001),
    duration: parseDuration(fields[2]!, 'the slow period', 1),
  };
}

/** "outage of db (refused) for 60 s from 0 s": a part as the report says it. */
export function describePart(part: ScenarioPart): string {
  const from = `from ${part.start} s`;
  if (part.kind === 'hang') return `the app hangs for ${part.duration} s ${from}`;
  if (part.kind === 'slow') return `${part.target} answers in ${part.latency} s for ${part.duration} s ${from}`;
  return `${part.target} is down (${part.failure === 'blackhole' ? 'packets dropped: checks hang' : 'connections refused'}) for ${part.duration} s ${from}`;
}
