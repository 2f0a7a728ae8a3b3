// Rendering a repository of charts, as wall time against a baseline in the same run: 24 generated
// charts (two with ci/ values) rendered one after another (PROBE_LINT_RENDER_JOBS=1, no cache), side
// by side (the default, up to the cores), and again with the render cache warm — the pre-commit case;
// and, as the floor, `helm template` of the same renderings alone, as many at a time as there are cores:
// with helm's own defaults, and with Go's collector set as probe-lint's sandbox sets it (GOGC).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RENDERER_GOGC } from '../src/source/render/sandbox.js';
import { helmBinary } from '../test/tools.js';
import { floorRow, row } from './process-bench.js';
import { median } from './statistics.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, '../..');
const CLI = join(ROOT, 'dist/src/cli/bin.js');
const HELM = helmBinary();
const CHARTS = 24;

/** Whether the index-th chart has ci/ values, which probe-lint renders as a second rendering of it. */
const hasCiValues = (index: number): boolean => index % 12 === 0;
const RENDERINGS = CHARTS + Array.from({ length: CHARTS }, (_, index) => index).filter(hasCiValues).length;

function repository(): string {
  const root = mkdtempSync(join(tmpdir(), 'probe-lint-render-bench-'));
  mkdirSync(join(root, '.git'));
  for (let index = 0; index < CHARTS; index++) {
    const chart = join(root, 'charts', `app-${index}`);
    mkdirSync(join(chart, 'templates'), { recursive: true });
    writeFileSync(join(chart, 'Chart.yaml'), `apiVersion: v2\nname: app-${index}\nversion: 1.0.${index}\n`);
    writeFileSync(join(chart, 'values.yaml'), 'replicas: 2\nport: 8080\nprobe:\n  periodSeconds: 10\n  timeoutSeconds: 10\n');
    if (hasCiValues(index)) {
      mkdirSync(join(chart, 'ci'));
      writeFileSync(join(chart, 'ci', 'fast-values.yaml'), 'probe:\n  periodSeconds: 2\n  timeoutSeconds: 1\n');
    }
    writeFileSync(join(chart, 'templates', '_helpers.tpl'), `{{- define "app.name" -}}{{ .Chart.Name }}{{- end }}\n`);
    writeFileSync(
      join(chart, 'templates', 'deployment.yaml'),
      `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "app.name" . }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: {{ include "app.name" . }}}
  template:
    metadata:
      labels: {app: {{ include "app.name" . }}}
    spec:
      containers:
        - name: app
          image: example/app:1
          ports: [{name: http, containerPort: {{ .Values.port }}}]
          livenessProbe:
            httpGet: {path: /livez, port: http}
            {{- toYaml .Values.probe | nindent 12 }}
          readinessProbe:
            httpGet: {path: /ready, port: http}
`,
    );
    writeFileSync(
      join(chart, 'templates', 'service.yaml'),
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ include "app.name" . }}\nspec:\n  selector: {app: {{ include "app.name" . }}}\n  ports: [{port: 80, targetPort: http}]\n`,
    );
  }
  return root;
}

function wallMs(root: string, env: Record<string, string>, args: string[] = []): number {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [CLI, 'charts', '--helm', HELM, '--fail-on', 'never', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (run.status !== 0) throw new Error(`probe-lint exited ${run.status}: ${run.stderr.toString().slice(0, 500)}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** helm template of every rendering probe-lint makes (each chart, and each with its ci/ values), `jobs` at a time: the floor of rendering. */
async function helmAloneMs(root: string, jobs: number, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const renderings: string[][] = [];
  for (let index = 0; index < CHARTS; index++) {
    const chart = join(root, 'charts', `app-${index}`);
    renderings.push(['template', `app-${index}`, chart]);
    if (hasCiValues(index)) renderings.push(['template', `app-${index}`, chart, '--values', join(chart, 'ci', 'fast-values.yaml')]);
  }
  const started = process.hrtime.bigint();
  let next = 0;
  const worker = async () => {
    while (next < renderings.length) {
      const args = renderings[next++]!;
      await new Promise<void>((resolve, reject) =>
        spawn(HELM, args, { stdio: 'ignore', env }).on('close', (code) =>
          code === 0 ? resolve() : reject(new Error(`helm ${args.join(' ')} exited ${code}`)),
        ),
      );
    }
  };
  await Promise.all(Array.from({ length: jobs }, worker));
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** The render rows of the benchmark table: side by side ÷ one after another, and a warm cache ÷ the first run. */
export async function renderRows(rounds = 3): Promise<string[]> {
  const root = repository();
  const cacheHome = mkdtempSync(join(tmpdir(), 'probe-lint-render-bench-cache-'));
  try {
    const sequential: number[] = [];
    const parallel: number[] = [];
    const cached: number[] = [];
    const helmSequential: number[] = [];
    const helmParallel: number[] = [];
    const helmParallelAsRendered: number[] = [];
    for (let round = 0; round < rounds; round++) {
      helmSequential.push(await helmAloneMs(root, 1));
      helmParallel.push(await helmAloneMs(root, availableParallelism()));
      helmParallelAsRendered.push(await helmAloneMs(root, availableParallelism(), { ...process.env, GOGC: RENDERER_GOGC }));
      sequential.push(wallMs(root, { PROBE_LINT_RENDER_JOBS: '1', XDG_CACHE_HOME: cacheHome }, ['--no-render-cache']));
      parallel.push(wallMs(root, { XDG_CACHE_HOME: cacheHome }, ['--no-render-cache']));
      wallMs(root, { XDG_CACHE_HOME: cacheHome }); // fills the cache
      cached.push(wallMs(root, { XDG_CACHE_HOME: cacheHome }));
    }
    const [s, p, c] = [median(sequential), median(parallel), median(cached)];
    const [hs, hp, hr] = [median(helmSequential), median(helmParallel), median(helmParallelAsRendered)];
    return [
      row(`${CHARTS} charts linted ÷ helm template one after another`, p / hs, '≤0.6', `${p.toFixed(0)} vs ${hs.toFixed(0)} ms wall, ${RENDERINGS} renderings`),
      floorRow('helm template alone, side by side, ÷ one after another', hp / hs, `${hp.toFixed(0)} ms wall, ${availableParallelism()} at a time`),
      floorRow(`the same at GOGC=${RENDERER_GOGC}, as probe-lint runs helm`, hr / hs, `${hr.toFixed(0)} ms wall`),
      row(
        `${CHARTS} charts linted ÷ helm template side by side, as probe-lint runs it`,
        p / hr,
        '≤1.2',
        `${p.toFixed(0)} vs ${hr.toFixed(0)} ms wall (ours one after another: ${s.toFixed(0)} ms)`,
      ),
      row('charts again, render cache warm ÷ first run', c / p, '≤0.2', `${c.toFixed(0)} vs ${p.toFixed(0)} ms wall`),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(cacheHome, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log((await renderRows()).join('\n'));
