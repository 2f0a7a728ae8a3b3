/** Whether a parsed JSON/YAML value is an object (a mapping): not null, not an array, not a scalar. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A deep copy of a parsed JSON/YAML value (plain objects, arrays, scalars). Much cheaper than
 * structuredClone for the small values rules copy into fixes, which run on every admission.
 */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item: unknown) => cloneJson(item)) as T;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const child = cloneJson((value as Record<string, unknown>)[key]);
    // An own "__proto__" key (JSON.parse makes one) stays a key: assigning it would set the prototype.
    // Stryker disable next-line ConditionalExpression,BooleanLiteral: defining any key so gives what assigning it does; a copy is not written to after.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: child, enumerable: true, writable: true, configurable: true });
    else copy[key] = child;
  }
  return copy as T;
}
