// The words for a timeline's windows, shared by its text, markdown and SVG forms.
import type { TimelineWindow } from '../model/timeline.js';
import { windowText } from '../model/timing.js';

export const TIMELINE_ACTION: Record<TimelineWindow['action'], string> = {
  restart: 'restarts the container',
  kill: 'kills the container (restartPolicy Never: not restarted)',
  unready: 'takes the pod out of its Services',
  ready: 'puts the pod back in its Services',
  'startup-restart': 'gives up and restarts the container',
  'startup-kill': 'gives up and kills the container (restartPolicy Never: not restarted)',
};

export const TIMELINE_CASE: Record<TimelineWindow['case'], string> = {
  'fails-fast': 'when a check fails at once',
  hangs: 'when a check hangs until its timeout',
  recovers: '',
};

export const TIMELINE_FROM: Record<TimelineWindow['from'], string> = {
  failure: 'after the app starts failing',
  recovery: 'after the app answers again',
  'container-start': 'after the container starts',
};

/** "restarts the container when a check fails at once: 20-30 s after the app starts failing" */
export function windowSentence(window: TimelineWindow): string {
  const when = TIMELINE_CASE[window.case];
  return `${TIMELINE_ACTION[window.action]}${when ? ` ${when}` : ''}: ${windowText(window)} ${TIMELINE_FROM[window.from]}`;
}

/** Said under a container's windows when it has a startupProbe. */
export const STARTUP_GATES = 'liveness and readiness run only once the startupProbe has succeeded';

/** What a timeline says of a probe the lint calls invalid, before the lint's own words. */
export const INVALID_PROBE = 'not drawn: the probe is invalid';
