// Files an origin mapping reads (templates, values, manifests, patches), each once per run.
import { readManifestFile } from './inputs.js';
import { SourceFile } from '../parse/source-file.js';

/** Reads each file once per run. */
export class FileCache {
  private readonly texts = new Map<string, string | undefined>();
  private readonly parsed = new Map<string, SourceFile | undefined>();

  text(path: string): string | undefined {
    if (!this.texts.has(path)) {
      // Regular files only, within the input size limit: a FIFO named by a template must not hang the run.
      const read = readManifestFile(path);
      this.texts.set(path, 'text' in read ? read.text : undefined);
    }
    return this.texts.get(path);
  }

  source(path: string): SourceFile | undefined {
    if (!this.parsed.has(path)) {
      const text = this.text(path);
      const source = text === undefined ? undefined : new SourceFile(path, text);
      this.parsed.set(path, source?.error ? undefined : source);
    }
    return this.parsed.get(path);
  }
}
