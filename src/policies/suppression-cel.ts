// Suppression in CEL, as the engine's SuppressionPolicy decides it: the object's
// probe-lint.dev/ignore annotations (object-wide and per container, on the object and its pod
// template), when the parameters allow them, and the config's ignore entries, which the parameters
// carry as regular expressions.
import { IGNORE_ANNOTATION } from '../engine/suppression.js';
import { celString } from '../engine/cel.js';

/** Whether annotations count in this policy: not at all when strict, and in the denying policy only when annotationsInEnforce. */
export function annotationsHonoured(denying: boolean): string {
  const allowed = `params.data[?'annotations'].orValue('true') == 'true'`;
  return denying ? `(${allowed} && params.data[?'annotationsInEnforce'].orValue('false') == 'true')` : allowed;
}

/**
 * Variables every policy evaluates once, so that each rule's check for each container costs little
 * where nothing is suppressed (most objects): whether the object or its pod template carries an
 * ignore annotation at all, and the config's ignore entries, split once.
 */
export function suppressionVariables(): { name: string; expression: string }[] {
  const ignoreKey = (annotations: string) =>
    `${annotations}.exists(k, k == ${celString(IGNORE_ANNOTATION)} || k.startsWith(${celString(`${IGNORE_ANNOTATION}.`)}))`;
  return [
    { name: 'ignoreAnnotated', expression: `${ignoreKey('variables.objectAnnotations')} || ${ignoreKey('variables.podAnnotations')}` },
    { name: 'ignoreEntries', expression: `params.data[?'ignore'].orValue('').split('\\n').map(e, e.split(';')).filter(f, size(f) == 5)` },
  ];
}

/** CEL: rule `rule` is suppressed for container `container` (a CEL expression, or undefined for the object). */
export function suppressed(rule: string, container: string | undefined, denying: boolean): string {
  const keys =
    container === undefined ? celString(IGNORE_ANNOTATION) : `[${celString(IGNORE_ANNOTATION)}, ${celString(`${IGNORE_ANNOTATION}.`)} + ${container}.name]`;
  const names = (annotations: string) =>
    container === undefined
      ? `(${keys} in ${annotations} && ${annotations}[${keys}].split('#')[0].split(',').exists(id, id.trim() in ['*', ${celString(rule)}]))`
      : `${keys}.exists(k, k in ${annotations} && ${annotations}[k].split('#')[0].split(',').exists(id, id.trim() in ['*', ${celString(rule)}]))`;
  const ruleAllowed = `(!('annotationRules' in params.data) || ${celString(rule)} in params.data.annotationRules.split(','))`;
  const byAnnotation = `(variables.ignoreAnnotated && ${annotationsHonoured(denying)} && ${ruleAllowed} && (${names('variables.objectAnnotations')} || ${names('variables.podAnnotations')}))`;
  return `(${byAnnotation} || ${byConfig(rule, container === undefined ? "''" : `${container}.name`)})`;
}

/**
 * The config's ignore entries, one per line of the `ignore` parameter (variables.ignoreEntries):
 * `rules;kind;namespace;name;container`, rules `*` or comma-separated, the rest anchored regular
 * expressions made from the globs (see params.ts).
 */
function byConfig(rule: string, containerName: string): string {
  return (
    `variables.ignoreEntries.exists(f, (f[0] == '*' || ${celString(rule)} in f[0].split(',')) && object.kind.matches(f[1]) && ` +
    `request.namespace.matches(f[2]) && variables.name.matches(f[3]) && ${containerName}.matches(f[4]))`
  );
}
