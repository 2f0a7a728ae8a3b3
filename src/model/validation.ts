// The API server's own checks on probe fields (reference §1), as predicates.

/** IANA_SVC_NAME (apimachinery `IsValidPortName`): ≤15 chars of [-a-z0-9], a letter, no leading/trailing or double '-'. */
export function isValidPortName(name: string): boolean {
  return (
    // Stryker disable next-line ConditionalExpression: the empty name has no letter, which the pattern requires.
    name.length >= 1 &&
    name.length <= 15 &&
    /^[-a-z0-9]+$/.test(name) &&
    /[a-z]/.test(name) &&
    !name.startsWith('-') &&
    !name.endsWith('-') &&
    !name.includes('--')
  );
}

export function isValidPortNumber(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65535;
}

/** apimachinery `IsHTTPHeaderName`. */
export function isValidHeaderName(name: unknown): boolean {
  return typeof name === 'string' && /^[-A-Za-z0-9]+$/.test(name);
}

/** A `${PARAM}` or `${{PARAM}}` of an OpenShift Template, filled in when the template is processed: not a value to judge yet. */
export function isTemplateParameter(value: unknown, parameterized: boolean | undefined): boolean {
  // Stryker disable next-line ConditionalExpression: a number never matches the pattern; the test is for the type.
  return parameterized === true && typeof value === 'string' && /\$\{\{?[A-Za-z0-9_]+\}?\}/.test(value);
}
