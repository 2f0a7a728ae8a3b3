// RFC 6901 JSON Pointers: how findings and fixes name a place inside a document.

export function escapeSegment(segment: string | number): string {
  if (typeof segment === 'number') return String(segment);
  // Stryker disable next-line ConditionalExpression,StringLiteral: a shortcut; replacing in a segment without "~" or "/" changes nothing.
  return segment.includes('~') || segment.includes('/') ? segment.replace(/~/g, '~0').replace(/\//g, '~1') : segment;
}

export function joinPointer(base: string, ...segments: (string | number)[]): string {
  let pointer = base;
  for (const segment of segments) pointer += '/' + escapeSegment(segment);
  return pointer;
}

export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  const segments = pointer.slice(1).split('/');
  // Stryker disable next-line ConditionalExpression,StringLiteral: a shortcut; replacing in a segment without "~" or "/" changes nothing.
  return pointer.includes('~') ? segments.map(unescapeSegment) : segments;
}

function unescapeSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The value a pointer names, or undefined. */
export function valueAt(root: unknown, pointer: string): unknown {
  // Stryker disable next-line ConditionalExpression,StringLiteral: a shortcut; unescaping a segment without "~" changes nothing.
  const escaped = pointer.includes('~');
  let node = root;
  // Segment by segment without splitting: every pod site is found through here.
  for (let start = 1; start <= pointer.length;) {
    const slash = pointer.indexOf('/', start);
    const end = slash === -1 ? pointer.length : slash;
    if (node === null || typeof node !== 'object') return undefined;
    const segment = pointer.slice(start, end);
    node = (node as Record<string, unknown>)[escaped ? unescapeSegment(segment) : segment];
    start = end + 1;
  }
  return node;
}
