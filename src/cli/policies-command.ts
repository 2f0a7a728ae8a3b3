// `probe-lint policies`: the rules as admission policies, and the config as their parameters.
import { stringify } from 'yaml';
import { RULES } from '../../rules/index.js';
import { generatePolicies } from '../policies/generate.js';
import type { PoliciesArguments } from './arguments.js';
import { loadConfigOrReport, type CommandIo } from './context.js';

export async function runPolicies(args: PoliciesArguments, io: CommandIo): Promise<number> {
  const config = await loadConfigOrReport(args.config, io);
  if (config === undefined) return 2;
  const objects = generatePolicies(config, RULES, {
    namespace: args.namespace,
    excludeNamespaces: args.excludeNamespaces,
    today: new Date().toISOString().slice(0, 10),
  });
  if (args.format === 'json') io.stdout(`${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 2)}\n`);
  else io.stdout(objects.map((object) => stringify(object, { lineWidth: 0 })).join('---\n'));
  return 0;
}
