import { relative, resolve } from 'node:path';

/** A path as the user will recognise it: relative to the working directory when inside it ("." for it), else as given. */
export function shownPath(path: string): string {
  const rel = relative(process.cwd(), resolve(path));
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
}
