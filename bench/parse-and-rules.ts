// The lint's second floor: each file read and parsed as the lint parses it, and the rules run on its
// documents, and nothing else the lint does (no places, no repeats found, no fingerprints, no
// report). What the lint adds on top is its own bookkeeping and output.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { RULES } from '../rules/index.js';
import { unknownCluster } from '../src/engine/cluster-facts.js';
import { Engine } from '../src/engine/engine.js';
import { documentsOfFile } from '../src/source/file-documents.js';

/** The number of findings, so that nothing is optimised away. */
export function parseAndRulesOnce(files: string[]): number {
  const engine = new Engine(RULES, { config: {}, cluster: unknownCluster() });
  let findings = 0;
  for (const file of files) {
    const { documents } = documentsOfFile({ path: file, text: readFileSync(file, 'utf8') });
    findings += engine.lint(documents).findings.length;
  }
  return findings;
}

// As a process of its own (`node parse-and-rules.js FILE…`): the floor under the whole-process row.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) parseAndRulesOnce(process.argv.slice(2));
