import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Rule docs live beside the rule's source (rules/<id>/README.md); the package ships them.
const RULES_DIRECTORY = join(dirname(fileURLToPath(import.meta.url)), '../../../rules');

export const DOCS_BASE_URL = 'https://github.com/probe-lint/probe-lint/blob/main/rules';

export function ruleDocsPath(id: string): string {
  return join(RULES_DIRECTORY, id, 'README.md');
}

export function ruleDocsUrl(id: string): string {
  return `${DOCS_BASE_URL}/${id}/README.md`;
}

/** The rule's README, or undefined when the package was installed without docs. */
export function readRuleDocs(id: string): string | undefined {
  try {
    return readFileSync(ruleDocsPath(id), 'utf8');
  } catch {
    // The package was installed without the rule folders' READMEs.
  }
  return undefined;
}
