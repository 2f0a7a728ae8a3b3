// The inputs as deployment units, parsed when each one's turn comes: a directory of plain files, every
// rendering of one chart or kustomization, or the objects of a cluster. A Service selects only pods
// deployed with it (deploymentScope), which never spans two units, so each unit is linted on its own;
// its files are parsed one by one as the lint reaches them (lintUnits holds only what must wait).
import { dirname } from 'node:path';
import type { LintDocument } from '../model/document.js';
import { standaloneResource, type KubeObject } from '../model/resource.js';
import { inputErrorOf, type InputError, type SummaryCounts } from '../report/located.js';
import { documentsOfFile } from '../source/file-documents.js';
import { InputUnreadable, type InputFile } from '../source/read/inputs.js';
import type { SourceFile } from '../source/parse/source-file.js';
import { InputCounter } from './unit-counts.js';

/** Documents linted together, with what the summary counts of them. */
export interface LintUnit {
  /** Its documents parsed so far, in input order: all of them once parseNext has said there are no more. */
  documents: LintDocument[];
  /**
   * Parses the unit's next file, adding its documents (and what cannot be read or parsed to the input
   * errors); false once every file is parsed. Absent when documents is complete from the start.
   */
  parseNext?: () => boolean;
  /** Whether a file is left for parseNext (absent: none is). */
  hasMoreFiles?: () => boolean;
  /** Input files in it, for progress (a directory's manifests, one rendering). */
  files?: number;
  /** Where each document's file stood among the inputs: objects are listed in input order whatever the grouping. */
  fileOrder?: number[];
  /** The summary's counts, once every file is parsed. */
  counts?: (engine: { resources: number; containers: number }) => SummaryCounts;
  /** Lets document `index` go from its file once its findings are located (with `release`). */
  forget?: (index: number) => void;
}

/** Every document of the unit: the files not parsed yet are parsed now. */
export function allDocuments(unit: LintUnit): LintDocument[] {
  while (unit.parseNext?.() === true);
  return unit.documents;
}

/** The objects of a cluster (audit): one unit, as the API server holds them. */
export function objectsUnit(objects: readonly KubeObject[]): LintUnit {
  return { documents: objects.map((object) => ({ resources: [standaloneResource(object)] })) };
}

/**
 * The inputs' deployment units, each parsed file by file as it is linted; a file that cannot be read
 * or parsed (or is a template outside a chart) is an input error. With `release`, a file's text is let
 * go once parsed (its documents keep what they need), so a file on disk is read only when its turn comes.
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
  const sources: ({ source: SourceFile; index: number } | undefined)[] = [];
  // Counts only the files whose text was read (one that cannot be read is an input error).
  const counter = new InputCounter();
  let next = 0;
  const parseNext = (): boolean => {
    if (next === unit.length) return false;
    const { file, order } = unit[next++]!;
    let read;
    try {
      read = documentsOfFile(file);
    } catch (error) {
      if (!(error instanceof InputUnreadable)) throw error;
      inputErrors.push(inputErrorOf(error.problem));
      return true;
    }
    if (release) file.release?.();
    if (read.problem !== undefined) inputErrors.push(inputErrorOf(read.problem));
    counter.add(file, read.documents);
    const source = read.source;
    read.documents.forEach((document, index) => {
      documents.push(document);
      fileOrder.push(order);
      sources.push({ source, index });
    });
    return true;
  };
  return {
    documents,
    parseNext,
    hasMoreFiles: () => next < unit.length,
    files: unit.length,
    fileOrder,
    counts: (engine) => counter.counts(engine),
    // The unit lets go of a file once each of its documents is done: nothing then holds its text.
    forget: (index) => {
      const at = sources[index];
      at?.source.forget(at.index);
      sources[index] = undefined;
    },
  };
}
