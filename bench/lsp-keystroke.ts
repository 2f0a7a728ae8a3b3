// The language server on a big manifest: a keystroke in a 2,000-line file (40 Deployments) re-lints
// in under 50 ms. Measured two ways, beside js-yaml loadAll of the same text in the same run:
//   - the server's work per keystroke, in this process: lint the text and build the diagnostics;
//   - over the protocol, a real server process: from didChange to publishDiagnostics, less the
//     debounce it waits for the next keystroke.
//   npm run bench:lsp
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsYaml from 'js-yaml';
import { RULES } from '../rules/index.js';
import { Engine } from '../src/engine/engine.js';
import { findingDiagnostic } from '../src/lsp/diagnostics.js';
import { LintSession } from '../src/lint/index.js';
import { DEBOUNCE_MS } from '../src/lsp/server.js';
import { LspClient } from '../test/lsp-client.js';
import { generateDeployments } from './generate-corpus.js';
import { median } from './statistics.js';

const KEYSTROKES = 40;
const GOAL_MS = 50;

function percentile90(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))]!;
}

/** The manifest as typed: the first `count` Deployments of the generated corpus (Services dropped). */
function manifestOf(lines: number): string {
  const documents = generateDeployments(200)
    .split(/^---\n/m)
    .filter((document) => /kind: Deployment/.test(document));
  let text = '';
  for (const document of documents) {
    if (text.split('\n').length >= lines) break;
    text += `---\n${document}`;
  }
  return text;
}

/** The text after keystroke `n`: one digit of a number somewhere in the middle changes. */
function typed(text: string, n: number): string {
  const middle = text.indexOf('replicas: ', Math.floor(text.length / 2));
  return `${text.slice(0, middle)}replicas: ${(n % 9) + 1}${text.slice(middle + 'replicas: '.length + 1)}`;
}

const text = manifestOf(2000);
const lineCount = text.split('\n').length;
const session = new LintSession(new Engine(RULES, { config: {}, cluster: { podsPerNode: undefined, densePodsPerNode: 30, source: 'unknown' }, strict: false }));
const lines = text.split('\n');

const work: number[] = [];
const load: number[] = [];
let findings = 0;
for (let n = 0; n < KEYSTROKES; n++) {
  const current = typed(text, n);
  let started = performance.now();
  const lint = session.lintText('big.yaml', current);
  const diagnostics = lint.findings.map((finding) => findingDiagnostic(finding, (line) => lines[line] ?? ''));
  work.push(performance.now() - started);
  findings = diagnostics.length;
  started = performance.now();
  jsYaml.loadAll(current, null, { json: true });
  load.push(performance.now() - started);
}

const directory = mkdtempSync(join(tmpdir(), 'probe-lint-lsp-bench-'));
const roundTrips: number[] = [];
try {
  const path = join(directory, 'big.yaml');
  writeFileSync(path, text);
  const client = await LspClient.start();
  const uri = await client.open(path);
  await client.diagnostics(uri);
  for (let n = 0; n < KEYSTROKES; n++) {
    const started = performance.now();
    const version = await client.change(uri, typed(text, n));
    await client.diagnostics(uri, version);
    roundTrips.push(performance.now() - started - DEBOUNCE_MS);
  }
  await client.stop();
} finally {
  rmSync(directory, { recursive: true, force: true });
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
console.log(`probe-lint lsp on a ${lineCount}-line manifest (${findings} findings), ${KEYSTROKES} keystrokes; goal: under ${GOAL_MS} ms`);
console.log(`  js-yaml loadAll of the text (baseline)        median ${ms(median(load))}`);
console.log(
  `  re-lint and diagnostics, in process           median ${ms(median(work))}, p90 ${ms(percentile90(work))}  (${(median(work) / median(load)).toFixed(2)}× the baseline)`,
);
console.log(`  didChange to publishDiagnostics, less ${DEBOUNCE_MS} ms of debounce  median ${ms(median(roundTrips))}, p90 ${ms(percentile90(roundTrips))}`);
console.log(`  ${median(roundTrips) < GOAL_MS ? 'met' : 'NOT met'}: a keystroke re-lints in ${ms(median(roundTrips))} over the protocol`);
