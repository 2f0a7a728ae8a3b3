// The CLI's benchmark table, every row a ratio against a baseline measured in the same run:
//   - lint ÷ js-yaml loadAll of the same input, in one process (goal ≤ 1.5), with an exact
//     line:column on every finding: 10,000 Deployments + Services, and the real corpus when present;
//   - whole processes: the CLI on the generated file ÷ a process that only loads it with js-yaml
//     (CPU ≤ 2.0, peak RSS ≤ 1.5), and the CLI on one small file ÷ `node -e 0` (CPU ≤ 2.0);
//   - with the corpus: peak RSS on the directory ÷ js-yaml loading its files in turn (≤ 1.5), and
//     ÷ kube-score's probe checks on the files it parses (≤ 1.0; bench/corpus-memory.ts), and the
//     same on the generated file;
//   - rendering charts against `helm template` alone (bench/render-bench.ts);
//   - the webhook against a bare fastify HTTPS echo (bench/webhook-load.ts).
// Every row is printed beside its goal in one summary at the end; under a goal not met, a floor row
// gives the same ratio for a program that does only what cannot be avoided (the parse alone, the
// parse and the rules, those and the report's text written from its values, the rules alone behind
// the echo, js-yaml alone against kube-score, helm alone side by side).
//   npm run bench
//   node --expose-gc dist/bench/lint-throughput.js --deployments 2000 --rounds 3 --skip webhook,render
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import jsYaml from 'js-yaml';
import { parseArguments, type LintArguments } from '../src/cli/arguments.js';
import { runLint } from '../src/cli/lint-command.js';
import { SourceFile } from '../src/source/parse/source-file.js';
import { parseAndRulesOnce } from './parse-and-rules.js';
import { writeReportText } from './report-text.js';
import { generateDeployments } from './generate-corpus.js';
import { corpusMemoryRows, generatedKubeScoreRows } from './corpus-memory.js';
import { renderRows } from './render-bench.js';
import { webhookRows } from './webhook-load.js';
import { floorRow, processRows, row } from './process-bench.js';
import { median } from './statistics.js';

const { values } = parseArgs({
  options: { deployments: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '5' }, skip: { type: 'string', default: '' } },
});
const skipped = new Set(values.skip.split(',').filter((part) => part !== ''));
const rounds = Number(values.rounds);

/** Collects garbage first (with --expose-gc) so that one run's leftovers are not billed to the next. */
async function time(run: () => unknown): Promise<number> {
  (globalThis as { gc?: () => void }).gc?.();
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** The CLI's whole lint path (read, parse, locate, check, format JSON), minus process start-up. */
async function lintOnce(paths: string[]): Promise<{ output: string; code: number }> {
  const args = parseArguments([...paths, '--format', 'json', '--fail-on', 'never']).args as LintArguments;
  let output = '';
  const code = await runLint(args, {
    stdout: (text) => (output += text),
    stderr: (text) => process.stderr.write(text),
    readStdin: () => '',
    isTty: false,
    env: {},
    cwd: process.cwd(),
  });
  return { output, code };
}

/** The report's text alone, from its values parsed beforehand (untimed, and unreachable once this returns). */
async function timeReportText(json: string): Promise<number> {
  const report: unknown = JSON.parse(json);
  return time(() => writeReportText(report));
}

function loadOnce(files: string[]): void {
  // json: true, as the lint path, so files with duplicate keys load too (the last value wins).
  for (const file of files) jsYaml.loadAll(readFileSync(file, 'utf8'), null, { json: true });
}

/** The floor under the lint: each file read and parsed as the lint path parses it (positions recorded, kubectl's YAML 1.1 schema), nothing else. */
function parseOnce(files: string[]): void {
  for (const file of files) new SourceFile(file, readFileSync(file, 'utf8'));
}

async function compare(label: string, paths: string[], files: string[], bytes: number): Promise<number> {
  // Warm both paths up, then alternate so that both see the same machine state. The report the lint
  // writes is the one whose text alone is timed as part of the floor; it is kept as its text (one
  // string) and parsed, untimed, before each timing, so that its values weigh on no other path.
  const reportJson = (await lintOnce(paths)).output;
  writeReportText(JSON.parse(reportJson));
  loadOnce(files);
  parseOnce(files);
  parseAndRulesOnce(files);
  const lintTimes: number[] = [];
  const loadTimes: number[] = [];
  const parseTimes: number[] = [];
  const rulesTimes: number[] = [];
  const textTimes: number[] = [];
  let output = '';
  for (let round = 0; round < rounds; round++) {
    loadTimes.push(await time(() => loadOnce(files)));
    parseTimes.push(await time(() => parseOnce(files)));
    rulesTimes.push(await time(() => parseAndRulesOnce(files)));
    textTimes.push(await timeReportText(reportJson));
    lintTimes.push(await time(async () => (output = (await lintOnce(paths)).output)));
  }
  const result = JSON.parse(output) as { findings: { line: number | null; column: number | null }[]; summary: { resources: number } };
  const located = result.findings.filter((finding) => typeof finding.line === 'number' && typeof finding.column === 'number').length;
  const lint = median(lintTimes);
  const load = median(loadTimes);
  const parse = median(parseTimes);
  const rules = median(rulesTimes);
  const reportText = median(textTimes);
  const megabytes = bytes / 1e6;
  console.log(
    `\n${label}: ${files.length} files, ${megabytes.toFixed(1)} MB, ${result.summary.resources} resources, ${result.findings.length} findings (${located} with line:column)`,
  );
  console.log(`  js-yaml loadAll   ${load.toFixed(0).padStart(6)} ms  ${(megabytes / (load / 1000)).toFixed(1)} MB/s`);
  console.log(
    `  parse alone       ${parse.toFixed(0).padStart(6)} ms  ${(megabytes / (parse / 1000)).toFixed(1)} MB/s  (as the lint parses: positions, YAML 1.1)`,
  );
  console.log(`  parse and rules   ${rules.toFixed(0).padStart(6)} ms  ${(megabytes / (rules / 1000)).toFixed(1)} MB/s  (no places, no report)`);
  console.log(`  report text alone ${reportText.toFixed(0).padStart(6)} ms  (JSON.stringify of the finished report, written to /dev/null)`);
  console.log(`  probe-lint lint   ${lint.toFixed(0).padStart(6)} ms  ${(megabytes / (lint / 1000)).toFixed(1)} MB/s`);
  console.log(`  ratio lint ÷ load ${(lint / load).toFixed(2)}  (goal ≤ 1.5; median of ${rounds} rounds)`);
  rows.push(row(`lint ÷ js-yaml loadAll, ${label.split(':')[0]}`, lint / load, '≤1.5', `${lint.toFixed(0)} vs ${load.toFixed(0)} ms`));
  rows.push(floorRow("the lint path's parse alone ÷ js-yaml loadAll", parse / load, `${parse.toFixed(0)} ms`));
  rows.push(floorRow('the parse and the rules alone ÷ js-yaml loadAll', rules / load, `${rules.toFixed(0)} ms`));
  rows.push(
    floorRow(
      '… and the report’s text alone, added',
      (rules + reportText) / load,
      `${reportText.toFixed(0)} ms more; the rest is places, repeats, fingerprints and the report's values`,
    ),
  );
  if (located !== result.findings.length) throw new Error('some findings have no line:column');
  return lint / load;
}

const rows: string[] = [];
const directory = mkdtempSync(join(tmpdir(), 'probe-lint-bench-'));
try {
  const generated = join(directory, 'deployments.yaml');
  const text = generateDeployments(Number(values.deployments));
  writeFileSync(generated, text);
  await compare(`generated: ${values.deployments} Deployments + Services in one multi-document file`, [generated], [generated], Buffer.byteLength(text));

  const corpus = join(process.cwd(), '../shared/corpus/real');
  if (existsSync(corpus)) {
    const files = readdirSync(corpus, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.(ya?ml|json)$/.test(entry.name))
      .map((entry) => join(entry.parentPath, entry.name));
    const bytes = files.reduce((sum, file) => sum + readFileSync(file).length, 0);
    await compare('real corpus (../shared/corpus/real)', [corpus], files, bytes);
  } else console.log(`\nreal corpus: skipped — ${corpus} is not beside this checkout (the corpus rows need it)`);
  rows.push(...processRows(generated, Math.max(3, Math.ceil(rounds / 2))));
  rows.push(...generatedKubeScoreRows(generated, 3));
  if (existsSync(corpus)) rows.push(...(await corpusMemoryRows(corpus, 3)));
  if (!skipped.has('render')) rows.push(...(await renderRows(3)));
  if (!skipped.has('webhook')) rows.push(...(await webhookRows({ seconds: 5, connections: 50, rounds: 3 })));
  console.log(`\nsummary (ratios; each against its baseline in this run):\n${rows.join('\n')}`);
} finally {
  rmSync(directory, { recursive: true, force: true });
}
