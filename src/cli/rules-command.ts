import { RULES } from '../../rules/index.js';
import { readRuleDocs } from '../engine/rule-docs.js';
import type { CommandIo } from './lint-command.js';

/** `probe-lint rules`: id, default severity, fixable, summary — from the rules' own metadata. */
export function runRules(io: CommandIo): number {
  const width = Math.max(...RULES.map((rule) => rule.meta.id.length));
  for (const { meta } of RULES) {
    io.stdout(`${meta.id.padEnd(width)}  ${meta.severity.padEnd(7)}  ${meta.fixable ? 'fix' : '   '}  ${meta.summary}\n`);
  }
  return 0;
}

/** `probe-lint explain RULE`: the rule's README. */
export function runExplain(id: string, io: CommandIo): number {
  const rule = RULES.find((candidate) => candidate.meta.id === id);
  if (rule === undefined) {
    io.stderr(`probe-lint: unknown rule "${id}"; run \`probe-lint rules\` for the list\n`);
    return 2;
  }
  io.stdout(readRuleDocs(id) ?? `${id}: ${rule.meta.summary}\n(documentation not installed)\n`);
  return 0;
}
