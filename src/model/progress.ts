// What long work reports as it goes: a task, how much of it is done of how much is known, and what
// is being done now. The pipeline reports; an outlet (the CLI's progress line) decides whether and
// how to show it. Nothing here prints.

export interface ProgressEvent {
  /** What is being done, with `{count}` where done/total goes: "rendering {count} charts and kustomizations", "linting {count} files". */
  task: string;
  done: number;
  total: number;
  /** The item now at work, e.g. a chart's directory. */
  current?: string;
}

export type ProgressListener = (event: ProgressEvent) => void;

/** A listener that does nothing: what every surface without a terminal gets. */
export const NO_PROGRESS: ProgressListener = () => {};
