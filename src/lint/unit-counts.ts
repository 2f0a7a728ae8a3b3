// What a lint run read, for the summary: files as they are, charts and kustomizations with the
// renderings they made, and objects counted once — a chart rendered with its defaults and with two
// ci/ values files holds most of its objects three times, but the user wrote each once.
import type { LintDocument } from '../model/document.js';
import { findPodSites } from '../model/pod-site.js';
import type { SummaryCounts } from '../report/located.js';
import type { InputFile } from '../source/read/inputs.js';

/**
 * The counts of a group of files, fed each file as it is read, with its documents, and said once the
 * engine has told how many resources and containers it saw (every rendering counted). What repeats
 * is found as the documents come: the engine lets them go one by one.
 */
export class InputCounter {
  private readonly units = { helm: new Set<string>(), kustomize: new Set<string>() };
  private renderings = 0;
  private plain = 0;
  // Only rendered objects repeat: those seen before are taken off the engine's counts. An object is
  // the n-th of its kind that a template writes in a rendering, whatever the rendering names it (a ci/
  // values file may rename the release).
  private readonly seen = new Set<string>();
  private readonly written = new Map<string, number>();
  private repeatedResources = 0;
  private repeatedContainers = 0;

  /** A file whose text was read, and its documents. */
  add(file: InputFile, documents: readonly LintDocument[]): void {
    const root = file.rendered?.root;
    if (file.rendered === undefined || root === undefined) this.plain++;
    else {
      this.renderings++;
      this.units[file.rendered.from].add(root);
    }
    for (const document of documents) {
      for (const resource of document.resources) {
        const rendered = resource.origin.rendered;
        if (rendered?.root === undefined) continue;
        const object = resource.object as { apiVersion?: unknown; kind?: unknown };
        const template = JSON.stringify([rendered.from, rendered.root, resource.origin.file, object.apiVersion, object.kind]);
        const inRendering = `${template}\u0000${rendered.values ?? ''}`;
        const nth = this.written.get(inRendering) ?? 0;
        this.written.set(inRendering, nth + 1);
        const key = `${template}\u0000${nth}`;
        if (!this.seen.has(key)) {
          this.seen.add(key);
          continue;
        }
        this.repeatedResources++;
        for (const site of findPodSites(resource)) this.repeatedContainers += site.containers.length;
      }
    }
  }

  counts(engine: { resources: number; containers: number }): SummaryCounts {
    if (this.renderings === 0) return { files: this.plain, ...engine };
    return {
      files: this.plain,
      ...(this.units.helm.size > 0 ? { charts: this.units.helm.size } : {}),
      ...(this.units.kustomize.size > 0 ? { kustomizations: this.units.kustomize.size } : {}),
      renderings: this.renderings,
      resources: engine.resources - this.repeatedResources,
      containers: engine.containers - this.repeatedContainers,
    };
  }
}
