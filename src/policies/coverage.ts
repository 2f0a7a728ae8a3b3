// Which rules the admission policies carry, and why the others cannot be: the README's table, and
// what the webhook leaves to the policies when both are installed.
import type { ProbeLintConfig } from '../engine/config.js';
import type { AnyRule, Report } from '../engine/rule.js';

export function policyTable(rules: readonly AnyRule[]): string {
  const rows = rules.map(({ meta }) => {
    const policy = meta.policy;
    if ('notExpressible' in policy) return `| \`${meta.id}\` | — | ${policy.notExpressible} |`;
    const what = policy.mutation !== undefined ? 'validating, mutating (opt-in)' : 'validating';
    return `| \`${meta.id}\` | ${what} | ${policy.limits ?? 'as the engine'} |`;
  });
  return ['| rule | in the policies | difference from the engine |', '|---|---|---|', ...rows].join('\n');
}

/** Whether the policies write this finding of the rule as the engine does (its CEL writes that message). */
export function expressedByPolicies(rule: AnyRule, messageId: string): boolean {
  const policy = rule.meta.policy;
  return 'over' in policy && policy.unexpressed?.includes(messageId) !== true;
}

/**
 * The rules the webhook runs: all of them, or beside the policies what the policies do not write —
 * the rules without CEL, and the messages a rule's CEL cannot write (nothing is reported twice).
 */
export function webhookRules(rules: readonly AnyRule[], config: ProbeLintConfig): readonly AnyRule[] {
  if (config.webhook?.coveredByPolicies !== true) return rules;
  return rules.flatMap((rule) => {
    const policy = rule.meta.policy;
    if (!('over' in policy)) return [rule];
    return policy.unexpressed === undefined || policy.unexpressed.length === 0 ? [] : [reportingOnly(rule, new Set(policy.unexpressed))];
  });
}

/** The rule reporting only the messages in `messageIds`. */
function reportingOnly(rule: AnyRule, messageIds: ReadonlySet<string>): AnyRule {
  const only = <Context extends { report: (report: Report<string>) => void }>(context: Context): Context => ({
    ...context,
    report: (report: Report<string>) => {
      if (messageIds.has(report.messageId)) context.report(report);
    },
  });
  return {
    meta: rule.meta,
    ...(rule.checkContainer && { checkContainer: (context) => rule.checkContainer!(only(context)) }),
    ...(rule.checkPodSite && { checkPodSite: (context) => rule.checkPodSite!(only(context)) }),
    ...(rule.checkDocument && { checkDocument: (context) => rule.checkDocument!(only(context)) }),
  };
}
