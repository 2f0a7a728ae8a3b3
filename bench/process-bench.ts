// Whole processes, as users run them, against a bare Node baseline in the same run: the CLI on a
// large file against a process that only runs js-yaml's loadAll on it (CPU and peak RSS), beside its
// floors (a process that parses and runs the rules only; the same lint with no finding reported, and
// that with the CPU of writing the report's text from its values added: bench/report-text.ts), and
// the CLI on one small file against `node -e 0` (start-up: the pre-commit case).
import { spawnSync, type SpawnSyncOptions, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './statistics.js';

const here = dirname(fileURLToPath(import.meta.url));
const CLI = join(here, '../src/cli/bin.js');
const USAGE_HOOK = join(here, 'process-usage.js');
const PARSE_AND_RULES = join(here, 'parse-and-rules.js');
const REPORT_TEXT = join(here, 'report-text.js');

export interface Usage {
  cpuMs: number;
  maxRssMb: number;
}

/** Runs `node ARGS`, which must exit 0, or 1 (a lint's findings at --fail-on). */
function runNode(args: string[], options: SpawnSyncOptions): SpawnSyncReturns<Buffer> {
  const run = spawnSync(process.execPath, args, options) as SpawnSyncReturns<Buffer>;
  if (run.status !== 0 && run.status !== 1) throw new Error(`node ${args.join(' ')} exited ${run.status}: ${String(run.stderr).slice(0, 500)}`);
  return run;
}

/** The JSON report `node ARGS` writes on stdout. */
function reportOf(args: string[]): string {
  return runNode(args, { maxBuffer: 256 * 1024 * 1024 }).stdout.toString('utf8');
}

/** Runs `node ARGS` with the usage hook; returns its CPU time and peak RSS. Output is discarded. */
export function measureProcess(args: string[], cwd = process.cwd()): Usage {
  const directory = mkdtempSync(join(tmpdir(), 'probe-lint-usage-'));
  try {
    const file = join(directory, 'usage.json');
    runNode(['--import', USAGE_HOOK, ...args], {
      cwd,
      env: { ...process.env, PROBE_LINT_USAGE_FILE: file, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
    return JSON.parse(readFileSync(file, 'utf8')) as Usage;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Alternates the two commands `rounds` times; medians of CPU and peak RSS for each. */
export function comparePair(subject: string[], baseline: string[], rounds: number): { subject: Usage; baseline: Usage } {
  const runs = { subject: [] as Usage[], baseline: [] as Usage[] };
  for (let round = 0; round < rounds; round++) {
    runs.baseline.push(measureProcess(baseline));
    runs.subject.push(measureProcess(subject));
  }
  const summary = (usages: Usage[]): Usage => ({ cpuMs: median(usages.map((u) => u.cpuMs)), maxRssMb: median(usages.map((u) => u.maxRssMb)) });
  return { subject: summary(runs.subject), baseline: summary(runs.baseline) };
}

/** Fails when `node ARGS` shows a finding in its JSON report: the row would no longer be the lint without its report. */
function assertNothingReported(args: string[]): void {
  const report = JSON.parse(reportOf(args)) as { findings: unknown[] };
  if (report.findings.length !== 0) throw new Error(`expected no finding shown by node ${args.join(' ')}, got ${report.findings.length}`);
}

/**
 * The CPU of writing the JSON report of `node ARGS` from its values alone, in a fresh process each
 * time (median of `rounds`): the part of the report that no lint can leave out.
 */
function reportTextCpu(args: string[], directory: string, rounds: number): number {
  const report = join(directory, 'report.json');
  writeFileSync(report, reportOf(args));
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const text = spawnSync(process.execPath, [REPORT_TEXT, report], { encoding: 'utf8' });
    if (text.status !== 0) throw new Error(`report-text exited ${text.status}: ${text.stderr.slice(0, 500)}`);
    samples.push((JSON.parse(text.stdout) as { cpuMs: number }).cpuMs);
  }
  return median(samples);
}

export function row(what: string, ratio: number, goal: string, detail: string): string {
  const met = goal.startsWith('≤') ? ratio <= Number(goal.slice(1)) : ratio >= Number(goal.slice(1));
  return `  ${what.padEnd(56)} ${ratio.toFixed(2).padStart(5)}  goal ${goal.padEnd(5)} ${met ? 'met    ' : 'NOT met'}  ${detail}`;
}

/**
 * A floor under a goal's row: the same ratio for a program that does only what cannot be avoided
 * (the parse alone, the rules alone behind the echo, Node alone), so a goal it does not meet either
 * is seen to be out of reach, and the distance between the two is what is left to win.
 */
export function floorRow(what: string, ratio: number, detail: string): string {
  return `    floor: ${what.padEnd(47)} ${ratio.toFixed(2).padStart(5)}                     ${detail}`;
}

/** The process rows of the benchmark table, for a large manifest and a one-Pod file. */
export function processRows(largeFile: string, rounds: number): string[] {
  const directory = mkdtempSync(join(tmpdir(), 'probe-lint-process-'));
  try {
    const loader = join(directory, 'load-only.mjs');
    const jsYaml = join(here, '../../node_modules/js-yaml/dist/js-yaml.mjs');
    writeFileSync(
      loader,
      `import { readFileSync } from 'node:fs';\nimport jsYaml from ${JSON.stringify(jsYaml)};\njsYaml.loadAll(readFileSync(process.argv[2], 'utf8'), null, { json: true });\n`,
    );
    const small = join(directory, 'pod.yaml');
    writeFileSync(
      small,
      'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - name: web\n    image: example/web:1\n    livenessProbe: {httpGet: {path: /livez, port: 8080}}\n    readinessProbe: {httpGet: {path: /readyz, port: 8080}}\n',
    );
    const large = comparePair([CLI, largeFile, '--format', 'json'], [loader, largeFile], rounds);
    const largeFloor = comparePair([PARSE_AND_RULES, largeFile], [loader, largeFile], rounds);
    // The same CLI with every finding below --min-severity: each is counted, none kept, located or
    // written. What the row adds over it is the report.
    const unreportedArgs = [CLI, largeFile, '--format', 'json', '--min-severity', 'error'];
    assertNothingReported(unreportedArgs);
    const unreported = comparePair(unreportedArgs, [loader, largeFile], rounds);
    const reportText = reportTextCpu([CLI, largeFile, '--format', 'json'], directory, rounds);
    const startup = comparePair([CLI, small], ['-e', '0'], rounds * 3);
    // The fleet through a scenario that reaches every workload (the app itself hangs), against the lint of the same file.
    const simulated = comparePair(
      [CLI, 'simulate', largeFile, '--scenario', 'hang=self:60s', '--format', 'json'],
      [CLI, largeFile, '--format', 'json'],
      rounds,
    );
    return [
      row(
        'simulate (hang=self:60s, every workload) ÷ lint, whole process CPU',
        simulated.subject.cpuMs / simulated.baseline.cpuMs,
        '≤2.0',
        `${simulated.subject.cpuMs.toFixed(0)} vs ${simulated.baseline.cpuMs.toFixed(0)} ms CPU`,
      ),
      row(
        'whole process CPU ÷ js-yaml process',
        large.subject.cpuMs / large.baseline.cpuMs,
        '≤2.0',
        `${large.subject.cpuMs.toFixed(0)} vs ${large.baseline.cpuMs.toFixed(0)} ms CPU`,
      ),
      floorRow(
        'a process that parses and runs the rules only',
        largeFloor.subject.cpuMs / largeFloor.baseline.cpuMs,
        `${largeFloor.subject.cpuMs.toFixed(0)} ms CPU (its modules not bundled)`,
      ),
      floorRow(
        'the same lint with no finding reported',
        unreported.subject.cpuMs / unreported.baseline.cpuMs,
        `${unreported.subject.cpuMs.toFixed(0)} vs ${unreported.baseline.cpuMs.toFixed(0)} ms CPU`,
      ),
      floorRow(
        '… and its report’s text alone, added',
        (unreported.subject.cpuMs + reportText) / unreported.baseline.cpuMs,
        `${reportText.toFixed(0)} ms CPU more (a fresh process writing the report from its values); the rest is keeping, placing and fingerprinting the findings`,
      ),
      row(
        'peak RSS ÷ js-yaml process',
        large.subject.maxRssMb / large.baseline.maxRssMb,
        '≤1.5',
        `${large.subject.maxRssMb.toFixed(0)} vs ${large.baseline.maxRssMb.toFixed(0)} MB`,
      ),
      row(
        'one small file, CPU ÷ node -e 0',
        startup.subject.cpuMs / startup.baseline.cpuMs,
        '≤2.0',
        `${startup.subject.cpuMs.toFixed(0)} vs ${startup.baseline.cpuMs.toFixed(0)} ms CPU`,
      ),
    ];
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
