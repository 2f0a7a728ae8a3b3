// Rendering a repository of charts, as wall time against a baseline in the same run: 24 generated
// charts (two with ci/ values) rendered one after another (PROBE_LINT_RENDER_JOBS=1, no cache), side
// by side (the default, up to the cores), and again with the render cache warm — the pre-commit case.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { helmBinary } from '../test/tools.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, '../..');
const CLI = join(ROOT, 'dist/src/cli/bin.js');
const HELM = helmBinary();
const CHARTS = 24;

function repository(): string {
  const root = mkdtempSync(join(tmpdir(), 'probe-lint-render-bench-'));
  mkdirSync(join(root, '.git'));
  for (let index = 0; index < CHARTS; index++) {
    const chart = join(root, 'charts', `app-${index}`);
    mkdirSync(join(chart, 'templates'), { recursive: true });
    writeFileSync(join(chart, 'Chart.yaml'), `apiVersion: v2\nname: app-${index}\nversion: 1.0.${index}\n`);
    writeFileSync(join(chart, 'values.yaml'), 'replicas: 2\nport: 8080\nprobe:\n  periodSeconds: 10\n  timeoutSeconds: 10\n');
    if (index % 12 === 0) {
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

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

const root = repository();
const cacheHome = mkdtempSync(join(tmpdir(), 'probe-lint-render-bench-cache-'));
try {
  const rounds = 3;
  const sequential: number[] = [];
  const parallel: number[] = [];
  const cached: number[] = [];
  for (let round = 0; round < rounds; round++) {
    sequential.push(wallMs(root, { PROBE_LINT_RENDER_JOBS: '1', XDG_CACHE_HOME: cacheHome }, ['--no-render-cache']));
    parallel.push(wallMs(root, { XDG_CACHE_HOME: cacheHome }, ['--no-render-cache']));
    wallMs(root, { XDG_CACHE_HOME: cacheHome }); // fills the cache
    cached.push(wallMs(root, { XDG_CACHE_HOME: cacheHome }));
  }
  const [s, p, c] = [median(sequential), median(parallel), median(cached)];
  const row = (what: string, value: string, goal: string) => console.log(`| ${what} | ${value} | ${goal} |`);
  console.log(`${CHARTS} charts (${CHARTS + 2} renderings), median of ${rounds}; one after another: ${s.toFixed(0)} ms`);
  console.log('| what | measured | goal |\n|---|---|---|');
  row('side by side ÷ one after another', `${(p / s).toFixed(2)} (${p.toFixed(0)} ms)`, '≤ 0.6');
  row('second run, cache warm ÷ first run', `${(c / p).toFixed(2)} (${c.toFixed(0)} ms)`, '≤ 0.2');
} finally {
  rmSync(root, { recursive: true, force: true });
  rmSync(cacheHome, { recursive: true, force: true });
}
