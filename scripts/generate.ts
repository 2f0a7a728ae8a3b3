// Writes what is generated from the rules' metadata: schema/config.schema.json and the README's
// rule and fix tables (between their markers). `npm run generate` runs it; test/generated.test.ts
// fails when a committed file differs from what this would write.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RULES } from '../rules/index.js';
import { rulesTable } from '../src/cli/rules-command.js';
import { buildConfigSchema } from '../src/engine/config-schema.js';
import { optionsTable } from '../src/cli/options-table.js';

export interface GeneratedFile {
  path: string;
  text: string;
}

/** The generated files, relative to the repository root. */
export function generatedFiles(root: string): GeneratedFile[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  return [
    { path: 'schema/config.schema.json', text: `${JSON.stringify(buildConfigSchema(RULES), null, 2)}\n` },
    {
      path: 'README.md',
      text: replaceBetween(replaceBetween(replaceBetween(readme, 'rules', rulesTable(RULES)), 'fixes', fixesTable()), 'options', optionsTable()),
    },
  ];
}

function fixesTable(): string {
  const rows = RULES.filter((rule) => rule.meta.fix !== undefined).map(({ meta }) => `| \`${meta.id}\` | ${meta.fix} | ${meta.remediation} |`);
  return ['| rule | kind | what the fix does |', '|---|---|---|', ...rows].join('\n');
}

function replaceBetween(text: string, name: string, content: string): string {
  const begin = `<!-- generated:${name} -->`;
  const end = `<!-- /generated:${name} -->`;
  const start = text.indexOf(begin);
  const stop = text.indexOf(end);
  if (start === -1 || stop === -1) throw new Error(`README.md lacks the markers ${begin} … ${end}`);
  return `${text.slice(0, start + begin.length)}\n${content}\n${text.slice(stop)}`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const root = join(import.meta.dirname, '../..');
  for (const file of generatedFiles(root)) {
    writeFileSync(join(root, file.path), file.text);
    process.stdout.write(`wrote ${file.path}\n`);
  }
}
