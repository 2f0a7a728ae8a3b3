import { defineRule } from '../../src/engine/rule.js';

export default defineRule({
  meta: {
    id: 'duplicate-key',
    severity: 'error',
    summary: 'a mapping key written twice in a Kubernetes manifest',
    fixable: false,
    defaultOptions: {},
  },
  checkDocument({ duplicateKeys, report }) {
    for (const duplicate of duplicateKeys) {
      report({
        pointer: '',
        position: duplicate.position,
        message:
          `key "${duplicate.key}" appears twice in the same mapping: kubectl's strict field validation rejects the object, and lenient decoders ` +
          'silently keep the last value (which probe-lint checks). Remove one of them.',
      });
    }
  },
});
