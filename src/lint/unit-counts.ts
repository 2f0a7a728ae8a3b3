// What a lint run read, for the summary: files as they are, charts and kustomizations with the
// renderings they made, and objects counted once — a chart rendered with its defaults and with two
// ci/ values files holds most of its objects three times, but the user wrote each once.
import type { LintDocument } from '../model/document.js';
import { findPodSites } from '../model/pod-site.js';
import type { SummaryCounts } from '../report/located.js';
import type { InputFile } from '../source/inputs.js';

/**
 * The counts of a group of files, once the engine has said how many resources and containers it saw
 * (every rendering counted). What repeats is found now, while the documents are there: the engine
 * lets them go one by one.
 */
export function inputCounts(
  files: readonly InputFile[],
  documents: readonly LintDocument[],
): (engine: { resources: number; containers: number }) => SummaryCounts {
  const units = { helm: new Set<string>(), kustomize: new Set<string>() };
  let renderings = 0;
  let plain = 0;
  for (const file of files) {
    const root = file.rendered?.root;
    if (file.rendered === undefined || root === undefined) plain++;
    else {
      renderings++;
      units[file.rendered.from].add(root);
    }
  }
  if (renderings === 0) return (engine) => ({ files: plain, ...engine });
  // Only rendered objects repeat: those seen before are taken off the engine's counts. An object is
  // the n-th of its kind that a template writes in a rendering, whatever the rendering names it (a ci/
  // values file may rename the release).
  const seen = new Set<string>();
  const written = new Map<string, number>();
  let repeatedResources = 0;
  let repeatedContainers = 0;
  for (const document of documents) {
    for (const resource of document.resources) {
      const rendered = resource.origin.rendered;
      if (rendered?.root === undefined) continue;
      const object = resource.object as { apiVersion?: unknown; kind?: unknown };
      const template = JSON.stringify([rendered.from, rendered.root, resource.origin.file, object.apiVersion, object.kind]);
      const inRendering = `${template}\u0000${rendered.values ?? ''}`;
      const nth = written.get(inRendering) ?? 0;
      written.set(inRendering, nth + 1);
      const key = `${template}\u0000${nth}`;
      if (!seen.has(key)) {
        seen.add(key);
        continue;
      }
      repeatedResources++;
      for (const site of findPodSites(resource)) repeatedContainers += site.containers.length;
    }
  }
  return (engine) => ({
    files: plain,
    ...(units.helm.size > 0 ? { charts: units.helm.size } : {}),
    ...(units.kustomize.size > 0 ? { kustomizations: units.kustomize.size } : {}),
    renderings,
    resources: engine.resources - repeatedResources,
    containers: engine.containers - repeatedContainers,
  });
}
