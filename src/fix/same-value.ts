/**
 * Structural equality of parsed YAML/JSON values that may share nodes (YAML aliases make a DAG
 * whose expanded size is exponential in the file's). Each pair of nodes is compared once, so the
 * work is bounded by the distinct pairs, not by the expanded tree as `util.isDeepStrictEqual` is.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  return compare(a, b, new Map());
}

function compare(a: unknown, b: unknown, compared: Map<object, Set<object>>): boolean {
  if (Object.is(a, b)) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  let partners = compared.get(a);
  if (partners?.has(b)) return true; // equal, or being compared further up (a cycle)
  if (partners === undefined) compared.set(a, (partners = new Set()));
  partners.add(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(b, key) || !compare((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], compared)) return false;
  }
  return true;
}
