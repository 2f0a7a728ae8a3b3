// Which rules the admission policies carry, and why the others cannot be: the README's table, and
// what the webhook leaves to the policies when both are installed.
import type { ProbeLintConfig } from '../engine/config.js';
import type { AnyRule } from '../engine/rule.js';

export function policyTable(rules: readonly AnyRule[]): string {
  const rows = rules.map(({ meta }) => {
    const policy = meta.policy;
    if ('notExpressible' in policy) return `| \`${meta.id}\` | — | ${policy.notExpressible} |`;
    const what = policy.mutation !== undefined ? 'validating, mutating (opt-in)' : 'validating';
    return `| \`${meta.id}\` | ${what} | ${policy.limits ?? 'as the engine'} |`;
  });
  return ['| rule | in the policies | difference from the engine |', '|---|---|---|', ...rows].join('\n');
}

/** The rules the webhook runs: all of them, or beside the policies only those without CEL (nothing is reported twice). */
export function webhookRules(rules: readonly AnyRule[], config: ProbeLintConfig): readonly AnyRule[] {
  return config.webhook?.coveredByPolicies === true ? rules.filter((rule) => !('over' in rule.meta.policy)) : rules;
}
