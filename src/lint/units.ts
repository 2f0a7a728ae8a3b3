// The inputs as deployment units, parsed when each one's turn comes: a directory of plain files, every
// rendering of one chart or kustomization, or the objects of a cluster. A Service selects only pods
// deployed with it (deploymentScope), which never spans two units, so each unit is linted on its own
// and its parsed files are let go before the next is parsed: memory follows the largest unit.
import { dirname } from 'node:path';
import type { LintDocument } from '../model/document.js';
import { standaloneResource, type KubeObject } from '../model/resource.js';
import { inputErrorOf, type InputError, type SummaryCounts } from '../report/located.js';
import { documentsOfFile } from '../source/file-documents.js';
import { InputUnreadable, type InputFile } from '../source/inputs.js';
import type { SourceFile } from '../source/source-file.js';
import { inputCounts } from './unit-counts.js';

/** Documents linted together, with what the summary counts of them. */
export interface LintUnit {
  documents: LintDocument[];
  /** Input files in it, for progress (a directory's manifests, one rendering). */
  files?: number;
  /** Where each document's file stood among the inputs: objects are listed in input order whatever the grouping. */
  fileOrder?: number[];
  counts?: (engine: { resources: number; containers: number }) => SummaryCounts;
  /** Lets document `index` go from its file once its findings are located (with `release`). */
  forget?: (index: number) => void;
}

/** The objects of a cluster (audit): one unit, as the API server holds them. */
export function objectsUnit(objects: readonly KubeObject[]): LintUnit {
  return { documents: objects.map((object) => ({ resources: [standaloneResource(object)] })) };
}

/**
 * The inputs' deployment units, each parsed when its turn comes; a file that cannot be read or
 * parsed (or is a template outside a chart) is an input error. With `release`, a file's text is let
 * go once parsed (its documents keep what they need), so a file on disk is read only when its unit comes.
 */
export function* parsedUnits(files: readonly InputFile[], inputErrors: InputError[], release: boolean): Generator<LintUnit> {
  // Each unit is parsed by a function of its own: what the generator's frame holds between units
  // is the list of files, never a parsed file (a finished generator kept the last unit's whole text).
  for (const unit of groupsOf(files)) yield parsedUnit(unit, inputErrors, release);
}

function groupsOf(files: readonly InputFile[]): { file: InputFile; order: number }[][] {
  const groups = new Map<string, { file: InputFile; order: number }[]>();
  files.forEach((file, order) => {
    const key = file.rendered !== undefined ? `${file.rendered.from}\u0000${file.rendered.root ?? '-'}` : file.path === '-' ? '-' : dirname(file.path);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [{ file, order }]);
    else group.push({ file, order });
  });
  return [...groups.values()];
}

function parsedUnit(unit: readonly { file: InputFile; order: number }[], inputErrors: InputError[], release: boolean): LintUnit {
  const documents: LintDocument[] = [];
  const fileOrder: number[] = [];
  const sources: { source: SourceFile; index: number }[] = [];
  // The files whose text was read: the summary counts these (one that cannot be read is an input error).
  const readFiles: InputFile[] = [];
  for (const { file, order } of unit) {
    let read;
    try {
      read = documentsOfFile(file);
    } catch (error) {
      if (!(error instanceof InputUnreadable)) throw error;
      inputErrors.push(inputErrorOf(error.problem));
      continue;
    }
    readFiles.push(file);
    if (release) file.release?.();
    if (read.problem !== undefined) inputErrors.push(inputErrorOf(read.problem));
    const source = read.source;
    read.documents.forEach((document, index) => {
      documents.push(document);
      fileOrder.push(order);
      sources.push({ source, index });
    });
  }
  return {
    documents,
    files: unit.length,
    fileOrder,
    counts: inputCounts(readFiles, documents),
    forget: (index) => sources[index]!.source.forget(sources[index]!.index),
  };
}
