import { defineRule } from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'duplicate-key',
    severity: 'error',
    summary: 'a mapping key written twice in a Kubernetes manifest',
    remediation: 'Remove one of the two keys, keeping the value you mean.',
    messages: {
      duplicate: {
        short: 'key "{key}" appears twice in one mapping; remove one',
        long:
          'key "{key}" appears twice in the same mapping: kubectl rejects the file (its YAML-to-JSON conversion is strict about ' +
          'duplicate keys since 1.27), and tools that convert leniently silently keep the last value, which probe-lint checks. Remove one of them.',
      },
    },
  },
  checkDocument({ sourceIssues, report }) {
    for (const issue of sourceIssues) {
      if (issue.kind === 'duplicate-key') report({ messageId: 'duplicate', data: { key: issue.detail.key ?? '' }, pointer: '', position: issue.position });
    }
  },
});
