// The containers whose findings promise when the kubelet acts (a rule with meta.timing), each once,
// with its timeline: what the Markdown and HTML reports draw beside those findings.
import { findPodSites } from '../model/pod-site.js';
import { describeResource } from '../model/resource.js';
import { timelineOf } from '../model/timeline.js';
import type { AnyRule } from '../engine/rule.js';
import type { LocatedFinding } from './located.js';
import type { ContainerTimeline } from './timeline.js';

/** The timelines of the containers that `findings` (timing rules only) are about, in finding order. */
export function timelinesOfFindings(findings: readonly LocatedFinding[], rules: readonly AnyRule[]): ContainerTimeline[] {
  const timingRules = new Set(rules.filter((rule) => rule.meta.timing).map((rule) => rule.meta.id));
  const timelines: ContainerTimeline[] = [];
  const shown = new Set<string>();
  for (const finding of findings) {
    if (!timingRules.has(finding.rule) || finding.container === undefined) continue;
    const container = findPodSites(finding.resource)
      .flatMap((site) => site.containers)
      .find((candidate) => candidate.name === finding.container && finding.pointer.startsWith(candidate.pointer));
    const key = `${describeResource(finding.identity)}\u0000${container?.pointer}`;
    if (container === undefined || shown.has(key)) continue;
    shown.add(key);
    timelines.push({ file: finding.file, resource: describeResource(finding.identity), container: container.name, windows: timelineOf(container) });
  }
  return timelines;
}
