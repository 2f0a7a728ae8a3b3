import { RULES } from '../../rules/index.js';
import type { AnyRule } from '../engine/rule.js';
import { readRuleDocs, ruleDocsUrl } from '../engine/rule-docs.js';
import type { RulesFormat } from './arguments.js';
import { useColor, type CommandIo } from './context.js';

/** What `probe-lint rules --format json` prints for each rule: its own metadata, nothing written twice. */
export function ruleSummary(rule: AnyRule): Record<string, unknown> {
  const { meta } = rule;
  return {
    id: meta.id,
    severity: meta.severity,
    ...(meta.severityNote ? { severityNote: meta.severityNote } : {}),
    enabledByDefault: true,
    fix: meta.fix ?? null,
    options: meta.options
      ? Object.fromEntries(
          Object.entries(meta.options.schema).map(([name, schema]) => [
            name,
            { default: (meta.options!.defaults as Record<string, unknown>)[name], ...schema },
          ]),
        )
      : {},
    summary: meta.summary,
    remediation: meta.remediation,
    messages: Object.fromEntries(Object.entries(meta.messages).map(([id, text]) => [id, text.short])),
    admissionOptIn: meta.admission?.optIn ?? null,
    docs: ruleDocsUrl(meta.id),
  };
}

/** `probe-lint rules`: from the rules' own metadata, errors first, then by id. */
export function runRules(args: { format: RulesFormat; color: boolean | undefined }, io: CommandIo): number {
  if (args.format === 'json') {
    io.stdout(`${JSON.stringify(RULES.map(ruleSummary), null, 2)}\n`);
    return 0;
  }
  if (args.format === 'markdown') {
    io.stdout(`${rulesTable(RULES)}\n`);
    return 0;
  }
  const color = useColor(args.color, io);
  const width = Math.max(...RULES.map((rule) => rule.meta.id.length));
  const paint: Record<string, string> = { error: '\x1b[31m', warning: '\x1b[33m', info: '\x1b[36m' };
  for (const { meta } of RULES) {
    const severity = meta.severity.padEnd(7);
    const fix = (meta.fix ?? '').padEnd(10);
    const note = meta.severityNote ? ` (${meta.severityNote})` : '';
    io.stdout(`${meta.id.padEnd(width)}  ${color ? `${paint[meta.severity]}${severity}\x1b[0m` : severity}  ${fix}  ${meta.summary}${note}\n`);
  }
  return 0;
}

/** The rule table (Markdown) of docs/rules.md, generated; `rulesFolder` is where rules/ is seen from the page. */
export function rulesTable(rules: readonly AnyRule[], rulesFolder = 'rules'): string {
  const rows = rules.map(({ meta }) => {
    const severity = meta.severityNote ? `${meta.severity} (${meta.severityNote})` : meta.severity;
    return `| [\`${meta.id}\`](${rulesFolder}/${meta.id}/README.md) | ${severity} | ${meta.fix ?? '—'} | ${meta.summary} |`;
  });
  return ['| id | severity | fix | what it flags |', '|---|---|---|---|', ...rows].join('\n');
}

/** `probe-lint explain RULE`: the rule's README. */
export function runExplain(id: string, io: CommandIo): number {
  const rule = RULES.find((candidate) => candidate.meta.id === id);
  if (rule === undefined) {
    io.stderr(`probe-lint: unknown rule "${id}"; run \`probe-lint rules\` for the list\n`);
    return 2;
  }
  io.stdout(readRuleDocs(id) ?? `${id}: ${rule.meta.summary}\n${rule.meta.remediation}\n(documentation not installed)\n`);
  return 0;
}
