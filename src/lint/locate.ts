// Where each finding is in what the user edits (the manifest, or the template, declaring file or
// patch of a rendering), and which findings of several renderings are one: the lint session's last
// step before a report. report/ only formats what this gives it.
import type { Finding } from '../engine/finding.js';
import { positionOf, severityRank } from '../engine/finding.js';
import { describeResource } from '../model/resource.js';
import { compareLocated, type LocatedFinding } from '../report/located.js';

/** Resolves the finding's position in place (a copy per finding costs more than the lookup on large inputs). */
export function locate<T extends Finding>(finding: T): T & LocatedFinding {
  const located = finding as T & LocatedFinding;
  const { origin } = finding.resource;
  // A finding's own position (a duplicate key's, say) is a place in what was parsed: for rendered
  // input that is the rendering, never the template or patch the user edits, which is located anew.
  const elsewhere = origin.rendered === undefined ? undefined : origin.rendered.editedIn?.(finding.pointer);
  const position = origin.rendered === undefined ? positionOf(finding) : (elsewhere?.position ?? origin.locate?.(finding.pointer));
  located.file = elsewhere?.file ?? origin.file;
  located.line = position?.line;
  located.column = position?.column;
  if (origin.rendered !== undefined) {
    const inRendering = finding.position ?? origin.rendered.locateRendered(finding.pointer);
    located.rendered = {
      from: origin.rendered.from,
      root: origin.rendered.root,
      values: origin.rendered.values,
      line: inRendering.line,
      column: inRendering.column,
      ...(origin.rendered.inside !== undefined ? { inside: origin.rendered.inside } : {}),
    };
  }
  return located;
}

/** At most this many other objects are named when a finding folds renderings (the count says the rest). */
const NAMED_RENDERINGS = 3;

/**
 * Each finding once. A file several kustomizations fall back to, or a chart rendered with its ci/
 * values files, repeats findings at the same place: an exact repeat is dropped, and findings that
 * differ only in the object's name or namespace (a values file that renames the release) fold into
 * the first, which then says how many renderings it covers (`alsoIn`, and its message).
 */
export function withoutRepeats(findings: LocatedFinding[]): LocatedFinding[] {
  // Sorted first (in place), so that the findings of one place are neighbours and only they are
  // compared: a key string per finding, for every finding at once, cost 13 MB at the peak of a 16 MB
  // file. Returned in compareLocated order.
  findings.sort(compareLocated);
  const kept: LocatedFinding[] = [];
  // The objects each kept finding covers, made once a second finding comes to its place (most places have one).
  const objectsOf = new Map<LocatedFinding, Set<string>>();
  let placeStart = 0;
  let previous: LocatedFinding | undefined;
  for (const finding of findings) {
    // Without a place in a file, a finding is its object's alone.
    if (finding.file === undefined || finding.line === undefined) {
      kept.push(finding);
      continue;
    }
    if (previous === undefined || compareLocated(previous, finding) !== 0) placeStart = kept.length;
    previous = finding;
    // One finding of a rule per place, container and field: renderings may word it differently
    // (another Service selects the pod in one of them), and the most severe wording is kept.
    const at = indexOfSpot(kept, placeStart, finding);
    if (at === -1) {
      kept.push(finding);
      continue;
    }
    const earlier = kept[at]!;
    const objects = objectsOf.get(earlier) ?? new Set([describeResource(earlier.identity)]);
    const object = describeResource(finding.identity);
    if (severityRank(finding.severity) > severityRank(earlier.severity)) {
      // The more severe takes the place; the objects of the earlier are the others it covers.
      const others = [...(earlier.alsoIn ?? []), describeResource(earlier.identity)].filter((other) => other !== object);
      if (others.length > 0) finding.alsoIn = others;
      kept[at] = finding;
      objects.add(object);
      objectsOf.delete(earlier);
      objectsOf.set(finding, objects);
      continue;
    }
    objectsOf.set(earlier, objects);
    if (objects.has(object)) continue;
    objects.add(object);
    (earlier.alsoIn ??= []).push(object);
  }
  for (const finding of kept) {
    if (finding.alsoIn === undefined) continue;
    const others = finding.alsoIn;
    const named = others.slice(0, NAMED_RENDERINGS).join(', ') + (others.length > NAMED_RENDERINGS ? `, and ${others.length - NAMED_RENDERINGS} more` : '');
    finding.message = `${finding.message} The same in ${others.length + 1} renderings; the others: ${named}.`;
  }
  return kept;
}

/** Where in `kept`, from `from` on (its place's findings), a finding of the same spot as `finding` is; -1 if none. */
function indexOfSpot(kept: readonly LocatedFinding[], from: number, finding: LocatedFinding): number {
  for (let index = from; index < kept.length; index++) if (sameSpot(kept[index]!, finding)) return index;
  return -1;
}

/** Whether two findings of one place (file, line, column and rule alike) are of the same container, kind and field. */
function sameSpot(a: LocatedFinding, b: LocatedFinding): boolean {
  return (
    a.file === b.file &&
    a.line === b.line &&
    a.column === b.column &&
    a.rule === b.rule &&
    a.container === b.container &&
    a.identity.kind === b.identity.kind &&
    a.pointer === b.pointer
  );
}
