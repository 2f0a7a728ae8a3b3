// Where a document of rendered output (helm template, kustomize build, or a rendered stream on
// stdin) came from: the file the user edits, and the rendering itself.
import type { ResourceOrigin } from '../../model/resource.js';
import type { SourceFile } from './source-file.js';

export interface RenderedOrigin {
  from: 'helm' | 'kustomize';
  /** The chart or kustomization directory, as the user will recognise it; undefined for stdin. */
  root: string | undefined;
  /** The values file that produced this rendering, besides the chart's own values.yaml. */
  values: string | undefined;
  /** The origin of document `index` of the rendered stream: the file that declared it, and where. */
  originOf(index: number, value: unknown, source: SourceFile): ResourceOrigin;
}
