import { closestMatch, CONTAINER_FIELDS, defineRule, unknownFields } from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'probe-field-unknown',
    severity: 'error',
    summary: 'a field Kubernetes does not know in a probe, its handler, or the container fields probes read (a misspelt initialDelaySecond, livenesProbe)',
    remediation: 'Rename the field to the one meant (the message names the nearest), or remove it.',
    scope: { roles: ['container', 'sidecar', 'init', 'ephemeral'] },
    readsUndecodable: true,
    policy: {
      notExpressible:
        'An unknown field never reaches an admission policy: the API server refuses the object under strict field validation and drops the field otherwise, before policies run.',
    },
    messages: {
      unknown: {
        short: '{path} is not a field of {type}{hint}: kubectl refuses the object, other clients drop the field',
        long:
          "{path} is not a field of {type}{hint} in Kubernetes {version}. With strict field validation — kubectl's default — the API server " +
          'refuses the whole object ("unknown field"); a client that does not ask for it gets a warning at most, and the field is dropped: ' +
          '{what} runs as if it were not written. Rename it to the field meant, or remove it.',
      },
    },
  },
  checkContainer({ container, report }) {
    for (const found of unknownFields(container.container, CONTAINER_FIELDS, container.pointer)) {
      // A key with stray punctuation ("successThreshold:", a quoted key with a space) is matched without it.
      const bare = found.key.replace(/[^A-Za-z0-9]/g, '');
      // A word the field holds ("header" of httpHeaders) is the field too, when only one holds it.
      const holding = bare.length >= 4 ? [...found.type.fields].filter((field) => field.toLowerCase().includes(bare.toLowerCase())) : [];
      const nearest = closestMatch(bare, found.type.fields) ?? (holding.length === 1 ? holding[0] : undefined);
      report({
        messageId: 'unknown',
        data: {
          path: found.path,
          type: found.type.name,
          version: '1.37',
          hint: found.parent?.fields.has(found.key)
            ? ` (it is a field of ${found.parent.name}, written one level too deep: indent it as ${found.path.split('.').slice(-2, -1)[0]} is)`
            : nearest === undefined
              ? ''
              : ` (did you mean ${nearest}?)`,
          what: /^(liveness|readiness|startup)Probe\./.test(found.path) ? `the ${found.path.split('.')[0]}` : 'the container',
        },
        pointer: found.pointer,
      });
    }
  },
});
