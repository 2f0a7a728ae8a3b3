// Kustomizations: built with `kubectl kustomize` (or `kustomize build`) through a wrapper that asks
// kustomize to annotate each object with the file that declared it (buildMetadata: originAnnotations).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import jsYaml from 'js-yaml';
import { isKubeObject, type ResourceOrigin } from '../../model/resource.js';
import type { InputFile, InputProblem } from '../inputs.js';
import type { RenderedOrigin } from '../rendered.js';
import type { SourceFile } from '../source-file.js';
import type { KustomizationUnit } from './discover.js';
import { locateInManifests, type FileCache } from './locate-source.js';
import { runTool, toolMessage } from './run-tool.js';

export const ORIGIN_ANNOTATION = 'config.kubernetes.io/origin';

export interface KustomizeOptions {
  /** kubectl (run as `kubectl kustomize`) or kustomize (run as `kustomize build`). */
  binary: string;
  files: FileCache;
}

export async function renderKustomization(unit: KustomizationUnit, options: KustomizeOptions): Promise<{ files: InputFile[]; problems: InputProblem[] }> {
  // The wrapper lives in a temporary directory and refers to the kustomization by a relative path
  // (kustomize refuses absolute ones); it changes nothing but the origin annotations.
  const wrapper = mkdtempSync(join(tmpdir(), 'probe-lint-kustomize-'));
  try {
    writeFileSync(
      join(wrapper, 'kustomization.yaml'),
      `resources:\n  - ${JSON.stringify(relative(wrapper, resolve(unit.directory)))}\nbuildMetadata: [originAnnotations]\n`,
    );
    const kubectl = basename(options.binary).startsWith('kubectl');
    const run = await runTool(options.binary, kubectl ? ['kustomize', wrapper] : ['build', wrapper], process.cwd());
    if (run.code !== 0) {
      return {
        files: [],
        problems: [
          {
            path: unit.file,
            message: `cannot build the kustomization (${kubectl ? 'kubectl kustomize' : 'kustomize build'} ${unit.directory}): ${toolMessage(run).replaceAll(wrapper, unit.directory)}`,
          },
        ],
      };
    }
    return {
      files: [{ path: `${unit.directory} (kustomize build)`, text: run.stdout, rendered: kustomizeOrigin(unit, wrapper, options.files) }],
      problems: [],
    };
  } finally {
    rmSync(wrapper, { recursive: true, force: true });
  }
}

function kustomizeOrigin(unit: KustomizationUnit, wrapper: string, files: FileCache): RenderedOrigin {
  return {
    from: 'kustomize',
    root: unit.directory,
    values: undefined,
    originOf(index: number, value: unknown, source: SourceFile): ResourceOrigin {
      const declaring = declaringFile(value, wrapper);
      removeOriginAnnotation(value);
      const locateRendered = (pointer: string) => source.locate(index, pointer);
      const place = (pointer: string) => (declaring === undefined ? undefined : locateInManifests(files, declaring, unit.patches, value, pointer));
      return {
        file: declaring === undefined ? unit.file : shown(declaring),
        documentIndex: index,
        locate: (pointer) => (declaring === undefined ? undefined : place(pointer)?.position),
        rendered: {
          from: 'kustomize',
          root: unit.directory,
          values: undefined,
          locateRendered,
          editedIn: (pointer) => {
            const found = place(pointer);
            return found === undefined || found.file === declaring ? undefined : { file: shown(found.file), position: found.position };
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

function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') ? path : rel;
}
