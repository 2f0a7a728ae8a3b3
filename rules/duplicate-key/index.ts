import { defineRule } from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: 'duplicate-key',
    severity: 'warning',
    summary: 'a mapping key written twice in a Kubernetes manifest',
    remediation: 'Remove one of the two keys, keeping the value you mean.',
    policy: {
      notExpressible: 'A policy sees the object after the API server decoded it: a key written twice has already become its last value.',
    },
    messages: {
      duplicate: {
        short: 'key "{key}" appears twice in one mapping; kubectl keeps the last silently. Remove one',
        long:
          'key "{key}" appears twice in the same mapping: kubectl, Helm and the GitOps tools built on client-go keep the last value without a word, ' +
          'so the first one written is ignored (probe-lint checks the last, as they do); a client that sends the manifest as written with strict ' +
          'field validation is refused ("strict decoding error: duplicate field"). Remove one of them.',
      },
    },
  },
  checkDocument({ sourceIssues, report }) {
    for (const issue of sourceIssues) {
      // Stryker disable next-line ConditionalExpression: duplicate keys are the only source issue today.
      if (issue.kind === 'duplicate-key')
        // Stryker disable next-line StringLiteral,LogicalOperator: every issue has its key; the pointer places a finding in rendered input only (the chart layout test, outside the mutation run), plain input uses the position.
        report({ messageId: 'duplicate', data: { key: issue.detail.key ?? '' }, pointer: issue.detail.pointer ?? '', position: issue.position });
    }
  },
});
