import {
  celString,
  defineRule,
  didYouMean,
  hasIgnoreAnnotation,
  IGNORE_ANNOTATION,
  ignoreAnnotations,
  joinPointer,
  type CelMessages,
} from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'ignore-annotation-unknown-rule',
    severity: 'warning',
    summary: 'a probe-lint.dev/ignore annotation that names a rule probe-lint does not have',
    remediation: 'Correct the rule id (`probe-lint rules` lists them), or remove it from the annotation.',
    policy: {
      over: 'object',
      problems: unknownRuleProblems,
    },
    messages: {
      unknown: {
        short: '{key} names "{id}", which is not a probe-lint rule; it suppresses nothing',
        long:
          'annotation {key} names "{id}", which is not a probe-lint rule{suggestion}: it suppresses nothing, and the finding it was meant to ' +
          'silence is still reported. Correct the id (`probe-lint rules` lists them) or remove it.',
      },
    },
  },
  checkPodSite({ site, knownRules, report }) {
    // Most objects have no ignore annotation: nothing to build pointers for.
    // Stryker disable next-line ConditionalExpression,LogicalOperator,BooleanLiteral: a shortcut; without one the loops below find no key.
    if (!hasIgnoreAnnotation(site.resource.object.metadata) && !hasIgnoreAnnotation(site.podMetadata)) return;
    const places = [
      { metadata: site.resource.object.metadata, pointer: joinPointer(site.resource.pointer, 'metadata', 'annotations') },
      { metadata: site.podMetadata, pointer: site.pointer.replace(/\/spec$/, '/metadata/annotations') },
    ];
    // A Pod's own metadata is its pod metadata: read it once.
    if (site.podMetadata === site.resource.object.metadata) places.pop();
    const containers = site.containers.map((container) => container.name);
    for (const { metadata, pointer } of places) {
      for (const container of [undefined, ...containers]) {
        for (const annotation of ignoreAnnotations([metadata], container)) {
          // The object-wide key is read once, not once per container.
          if (container !== undefined && !annotation.key.endsWith(`.${container}`)) continue;
          for (const id of annotation.rules) {
            if (id === '*' || knownRules.has(id)) continue;
            report({
              messageId: 'unknown',
              data: { key: annotation.key, id, suggestion: didYouMean(id, knownRules) },
              pointer: joinPointer(pointer, annotation.key),
            });
          }
        }
      }
    }
  },
});

/**
 * The same check in CEL, over the object's and the pod template's annotations: the keys the
 * engine reads (the object-wide key and one per container), each id that is not a rule. The
 * known ids are the registry's, given to the generator as `variables.knownRules`.
 */
function unknownRuleProblems(message: CelMessages<'unknown'>): string {
  const places = ['variables.objectAnnotations', 'variables.podAnnotations'];
  const keys = `([${celString(IGNORE_ANNOTATION)}] + variables.allContainers.map(x, ${celString(`${IGNORE_ANNOTATION}.`)} + x.name))`;
  return places
    .map(
      (annotations) =>
        `${keys}.filter(k, k in ${annotations}).map(k, ${annotations}[k].split('#')[0].split(',').map(id, id.trim())` +
        `.filter(id, id != '' && id != '*' && !(id in variables.knownRules)).map(id, ${message('unknown', { key: 'k', id: 'id' })}))` +
        `.map(list, list.join('; ')).filter(text, text != '')`,
    )
    .map((list) => `(${list})`)
    .join(' + ');
}
