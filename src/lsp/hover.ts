// Hover on a probe: its values after the API server's defaults, and when the kubelet acts on it and
// on the container's other probes, from the timing model every message reads.
import type { MarkupContent } from 'vscode-languageserver';
import { isDefaulted } from '../model/describe.js';
import type { ProbeNumberField } from '../model/effective-probe.js';
import { timelineOf } from '../model/timeline.js';
import { code, tableCell } from '../report/markdown-text.js';
import { STARTUP_GATES, windowSentence } from '../report/timeline-words.js';
import type { ProbeAt } from './probe-at.js';

/** The number fields in the order the kubelet reads them, each with its unit. */
const FIELDS: readonly [ProbeNumberField, string][] = [
  ['initialDelaySeconds', ' s'],
  ['periodSeconds', ' s'],
  ['timeoutSeconds', ' s'],
  ['failureThreshold', ''],
  ['successThreshold', ''],
];

export function probeHover({ container, probe }: ProbeAt): MarkupContent {
  const handler = probe.handlerKinds.length === 0 ? 'no handler' : probe.handlerKinds.join(' + ');
  const lines = [`**${probe.field}** of container ${code(container.name)} (${tableCell(handler)})`, ''];
  if (!probe.numbersValid) {
    lines.push('A number of this probe is negative: the API server refuses it, and the kubelet never runs it.');
    return { kind: 'markdown', value: lines.join('\n') };
  }
  lines.push('| field | effective value |', '| --- | --- |');
  for (const [field, unit] of FIELDS) lines.push(`| ${field} | ${probe[field]}${unit}${isDefaulted(probe.raw, field) ? ' (default)' : ''} |`);
  const windows = timelineOf(container);
  // This probe's windows first, then the others' for the whole picture.
  const ordered = [...windows.filter((window) => window.probe === probe.field), ...windows.filter((window) => window.probe !== probe.field)];
  if (ordered.length > 0) lines.push('', 'When the kubelet acts:', '');
  for (const window of ordered) lines.push(`- ${window.probe} ${windowSentence(window)}`);
  if (windows.some((window) => window.probe === 'startupProbe')) lines.push('', `(${STARTUP_GATES})`);
  return { kind: 'markdown', value: lines.join('\n') };
}
