/** Shell-style glob (`*`, `?`) matching for ignore entries: kind, namespace, name, container. */
export function globToRegExp(glob: string): RegExp {
  const pattern = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${pattern}$`);
}

export function matchesGlob(glob: string | undefined, value: string | undefined): boolean {
  if (glob === undefined || glob === '*') return true;
  return globToRegExp(glob).test(value ?? '');
}
