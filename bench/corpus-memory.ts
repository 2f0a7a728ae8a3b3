// Peak memory over a directory of real manifests, two baselines measured in the same run:
//   - a Node process that loads each file in turn with js-yaml (what reading the YAML costs);
//   - kube-score v1.20.0 with only its probe checks (pod-probes, pod-probes-identical), the leanest
//     peer, built from the Go module proxy into the cache on first use (needs `go`; skipped without).
// kube-score stops at the first file it cannot parse, so both it and probe-lint are given the files it
// reads (found by running it on each file alone, a few at a time).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { floorRow, measureProcess, row } from './process-bench.js';
import { median } from './statistics.js';

const here = dirname(fileURLToPath(import.meta.url));
const CLI = join(here, '../src/cli/bin.js');
const KUBE_SCORE = 'github.com/zegl/kube-score/cmd/kube-score@v1.20.0';
const PROBE_TESTS = new Set(['pod-probes', 'pod-probes-identical']);

function manifestsIn(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.ya?ml$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** kube-score from the cache, installed with `go install` when missing; undefined (with the reason) when it cannot be. */
function kubeScore(): { binary: string } | { missing: string } {
  const bin = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'probe-lint', 'bench', 'bin');
  const binary = join(bin, 'kube-score');
  if (existsSync(binary)) return { binary };
  mkdirSync(bin, { recursive: true });
  const install = spawnSync('go', ['install', KUBE_SCORE], { env: { ...process.env, GOBIN: bin }, encoding: 'utf8' });
  if (install.error !== undefined) return { missing: `no go to build ${KUBE_SCORE}` };
  if (install.status !== 0) return { missing: `go install ${KUBE_SCORE} failed: ${install.stderr.trim().split('\n').at(-1)}` };
  return { binary };
}

/** Peak RSS of a process, in MB, from GNU time (the kernel's maxrss of the child). */
function peakRssMb(command: string, args: string[]): number {
  const run = spawnSync('/usr/bin/time', ['-f', '%M', command, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const kilobytes = Number(run.stderr.trim().split('\n').at(-1));
  if (!Number.isFinite(kilobytes)) throw new Error(`${command}: no peak RSS (${run.stderr.slice(-200)})`);
  return kilobytes / 1024;
}

/** The files kube-score reads on their own, a few runs at a time. */
async function readableBy(binary: string, ignore: string[], files: string[]): Promise<string[]> {
  const readable = new Array<boolean>(files.length).fill(false);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const index = next++;
      readable[index] = await new Promise<boolean>((resolve) => {
        let stderr = '';
        const child = spawn(binary, ['score', ...ignore, '--output-format', 'ci', files[index]!], { stdio: ['ignore', 'ignore', 'pipe'] });
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('close', () => resolve(!stderr.includes('Failed to')));
      });
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return files.filter((_, index) => readable[index]);
}

/** kube-score with the flags that leave only its probe checks on; or the row saying why it cannot be measured against. */
function probeChecksOfKubeScore(what: string): { binary: string; ignore: string[] } | { skipped: string } {
  const found = kubeScore();
  if ('missing' in found) return { skipped: `  ${what}: peak RSS ÷ kube-score         skipped: ${found.missing}` };
  if (!existsSync('/usr/bin/time')) return { skipped: `  ${what}: peak RSS ÷ kube-score         skipped: no /usr/bin/time to read its peak memory` };
  const tests = spawnSync(found.binary, ['list'], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')
    .map((line) => line.split(',')[0]!);
  return { binary: found.binary, ignore: tests.filter((test) => !PROBE_TESTS.has(test)).flatMap((test) => ['--ignore-test', test]) };
}

/** Peak RSS on one large generated file ÷ kube-score's probe checks on it. */
export function generatedKubeScoreRows(file: string, rounds: number): string[] {
  const probeChecks = probeChecksOfKubeScore('generated');
  if ('skipped' in probeChecks) return [probeChecks.skipped];
  const peer = median(Array.from({ length: rounds }, () => peakRssMb(probeChecks.binary, ['score', ...probeChecks.ignore, '--output-format', 'ci', file])));
  const ours = median(Array.from({ length: rounds }, () => peakRssMb(process.execPath, [CLI, file, '--format', 'json', '--fail-on', 'never'])));
  return [row('generated: peak RSS ÷ kube-score (probe checks)', ours / peer, '≤1.0', `${ours.toFixed(0)} vs ${peer.toFixed(0)} MB`)];
}

/** The memory rows for a directory of manifests. */
export async function corpusMemoryRows(corpus: string, rounds: number): Promise<string[]> {
  const rows: string[] = [];
  const files = manifestsIn(corpus);
  const directory = mkdtempSync(join(tmpdir(), 'probe-lint-corpus-'));
  try {
    const loader = join(directory, 'load-each.mjs');
    const jsYaml = join(here, '../../node_modules/js-yaml/dist/js-yaml.mjs');
    writeFileSync(
      loader,
      // A directory (every YAML file under it), or the files themselves.
      `import { readFileSync, readdirSync, statSync } from 'node:fs';\nimport { join } from 'node:path';\nimport jsYaml from ${JSON.stringify(jsYaml)};\n` +
        `const load = (file) => { try { jsYaml.loadAll(readFileSync(file, 'utf8'), null, { json: true }); } catch {} };\n` +
        `for (const path of process.argv.slice(2)) {\n` +
        `  if (!statSync(path).isDirectory()) { load(path); continue; }\n` +
        `  for (const entry of readdirSync(path, { recursive: true, withFileTypes: true })) if (entry.isFile() && /\\.ya?ml$/.test(entry.name)) load(join(entry.parentPath, entry.name));\n` +
        `}\n`,
    );
    const lint = [CLI, corpus, '--format', 'json', '--fail-on', 'never'];
    const subject = median(Array.from({ length: rounds }, () => measureProcess(lint).maxRssMb));
    const baseline = median(Array.from({ length: rounds }, () => measureProcess([loader, corpus]).maxRssMb));
    rows.push(
      row(
        'corpus directory: peak RSS ÷ js-yaml, file by file',
        subject / baseline,
        '≤1.5',
        `${subject.toFixed(0)} vs ${baseline.toFixed(0)} MB, ${files.length} files`,
      ),
    );

    const probeChecks = probeChecksOfKubeScore('corpus directory');
    if ('skipped' in probeChecks) return [...rows, probeChecks.skipped];
    const { binary, ignore } = probeChecks;
    const readable = await readableBy(binary, ignore, files);
    const peer = median(Array.from({ length: rounds }, () => peakRssMb(binary, ['score', ...ignore, '--output-format', 'ci', ...readable])));
    const ours = median(Array.from({ length: rounds }, () => peakRssMb(process.execPath, [CLI, ...readable, '--format', 'json', '--fail-on', 'never'])));
    rows.push(
      row(
        'corpus: peak RSS ÷ kube-score (probe checks)',
        ours / peer,
        '≤1.0',
        `${ours.toFixed(0)} vs ${peer.toFixed(0)} MB, the ${readable.length} of ${files.length} files kube-score parses`,
      ),
    );
    // What any Node program pays to read the same files: Node itself and js-yaml's documents.
    const reader = median(Array.from({ length: rounds }, () => peakRssMb(process.execPath, [loader, ...readable])));
    rows.push(floorRow('js-yaml alone, the same files, ÷ kube-score', reader / peer, `${reader.toFixed(0)} MB`));
    return rows;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
