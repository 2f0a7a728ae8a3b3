// Where a document of rendered output (helm template, kustomize build) came from.

export interface RenderedOrigin {
  from: 'helm' | 'kustomize' | 'stdin';
  /** The chart or kustomization directory. */
  root?: string;
  /** The values file that produced this rendering, besides the chart's own values.yaml. */
  values?: string;
  /** Per document index of the rendered stream: the file that declared it (a template, a resource), when known. */
  sources: (string | undefined)[];
}
