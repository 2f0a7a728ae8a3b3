// From kustomize's output back to what the user edits: the wrapper asks kustomize to annotate each
// object with the file that declared it; the annotation is read, checked against the tree, and removed.
import { resolve } from 'node:path';
import jsYaml from 'js-yaml';
import { isKubeObject, type ResourceOrigin } from '../../model/resource.js';
import type { RenderedOrigin } from '../parse/rendered.js';
import type { SourceFile } from '../parse/source-file.js';
import type { KustomizationUnit } from '../read/discover.js';
import type { FileCache } from '../read/file-cache.js';
import { locateInManifests } from './locate-manifest.js';
import type { TreeGuard } from '../read/tree-guard.js';
import { shownPath } from '../read/shown-path.js';

export const ORIGIN_ANNOTATION = 'config.kubernetes.io/origin';

export function kustomizeOrigin(unit: KustomizationUnit, wrapper: string, files: FileCache, guard: TreeGuard): RenderedOrigin {
  return {
    from: 'kustomize',
    root: unit.directory,
    values: undefined,
    originOf(index: number, value: unknown, source: SourceFile): ResourceOrigin {
      // The annotation is kustomize's, but an object may bring its own: only a file inside the tree counts.
      const named = declaringFile(value, wrapper);
      const declaring = named !== undefined && guard.contains(named) ? named : undefined;
      removeOriginAnnotation(value);
      const locateRendered = (pointer: string) => source.locate(index, pointer);
      const place = (pointer: string) => (declaring === undefined ? undefined : locateInManifests(files, declaring, unit.patches, value, pointer));
      return {
        file: declaring === undefined ? unit.file : shownPath(declaring),
        documentIndex: index,
        locate: (pointer) => (declaring === undefined ? undefined : place(pointer)?.position),
        rendered: {
          from: 'kustomize',
          root: unit.directory,
          values: undefined,
          locateRendered,
          editedIn: (pointer) => {
            const found = place(pointer);
            return found === undefined || found.file === declaring ? undefined : { file: shownPath(found.file), position: found.position };
          },
        },
      };
    },
  };
}

/** The `path:` of kustomize's origin annotation, relative to the wrapper; absolute here. */
function declaringFile(value: unknown, wrapper: string): string | undefined {
  if (!isKubeObject(value)) return undefined;
  const annotation = value.metadata?.annotations?.[ORIGIN_ANNOTATION];
  if (typeof annotation !== 'string') return undefined;
  try {
    const path = (jsYaml.load(annotation) as { path?: unknown } | null)?.path;
    return typeof path === 'string' ? resolve(wrapper, path) : undefined;
  } catch {
    return undefined;
  }
}

/** The annotation is probe-lint's own doing: the object is linted as the user wrote it. */
function removeOriginAnnotation(value: unknown): void {
  if (!isKubeObject(value) || value.metadata?.annotations === undefined) return;
  const annotations = value.metadata.annotations;
  delete annotations[ORIGIN_ANNOTATION];
  if (Object.keys(annotations).length === 0) delete value.metadata.annotations;
}
