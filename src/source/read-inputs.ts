import { readPlainInputs, type ReadResult } from './inputs.js';

export interface ReadOptions {
  readStdin: () => string | Buffer;
  cwd: string;
  render: { helm: string | undefined; kustomize: string | undefined; values: string[]; set: string[]; enabled: boolean };
}

/** The inputs of a lint run: plain manifests, and charts and kustomizations rendered. */
export async function readInputs(paths: readonly string[], options: ReadOptions): Promise<ReadResult> {
  return readPlainInputs(paths, options.readStdin);
}
