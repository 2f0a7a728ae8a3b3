// RFC 6901 JSON Pointers: how findings and fixes name a place inside a document.

export function escapeSegment(segment: string | number): string {
  const text = String(segment);
  return text.includes('~') || text.includes('/') ? text.replace(/~/g, '~0').replace(/\//g, '~1') : text;
}

export function joinPointer(base: string, ...segments: (string | number)[]): string {
  return base + segments.map((segment) => '/' + escapeSegment(segment)).join('');
}

export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  const segments = pointer.slice(1).split('/');
  return pointer.includes('~') ? segments.map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~')) : segments;
}

/** The value a pointer names, or undefined. */
export function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const segment of parsePointer(pointer)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}
