// Webhook load: autocannon against the real probe-lint HTTPS server and, in the same run, against a
// bare fastify HTTPS echo that parses the same AdmissionReviews and sends the same answer. Every
// request carries a distinct pod spec (container names, images, ports and paths vary), so nothing
// can be answered from a cache. The servers take turns for --rounds rounds; medians are reported.
// Goals: throughput ≥ 0.7 of the echo's, p99 ≤ 10 ms at 50 connections, RSS at start and under
// load ≤ 1.3 × the echo's. The floor: the same echo with the rules behind it (echo-server.ts
// --rules), which does the rules' work and nothing else the webhook does.
//   npm run bench:webhook        node dist/bench/webhook-load.js [--seconds 5] [--connections 50] [--rounds 3]
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { RULES } from '../rules/index.js';
import { unknownCluster } from '../src/engine/cluster-facts.js';
import { Engine } from '../src/engine/engine.js';
import { LintSession } from '../src/lint/index.js';
import { DEFAULT_LIMITS } from '../src/lint/admitted.js';
import { NamespacePolicy } from '../src/webhook/namespace-policy.js';
import { validateRequest } from '../src/webhook/validate.js';
import { admissionReview, container, deployment } from '../test/admission.js';
import { makeTestPki } from '../test/tls.js';
import { floorRow, row } from './process-bench.js';
import { median } from './statistics.js';

const here = dirname(fileURLToPath(import.meta.url));

export interface WebhookLoadOptions {
  seconds: number;
  connections: number;
  rounds: number;
}

/** The webhook rows of the benchmark table: throughput and memory against the echo's in this run, and the p99. */
export async function webhookRows({ seconds, connections, rounds }: WebhookLoadOptions): Promise<string[]> {
  const pki = makeTestPki();
  const cert = pki.issue('bench');
  /** The n-th review: a Deployment whose names, image, port and paths differ from every other's. */
  function reviewBody(n: number): string {
    const port = 8000 + (n % 1000);
    return JSON.stringify(
      admissionReview({
        operation: 'CREATE',
        object: deployment([
          container(`web-${n}`, {
            livenessProbe: { httpGet: { path: `/healthz/${n}`, port }, timeoutSeconds: 10, initialDelaySeconds: 60 },
            readinessProbe: { httpGet: { path: `/healthz/${n}`, port } },
          }),
          container(`sidecar-${n}`, { livenessProbe: { exec: { command: ['/bin/check', String(n)] }, periodSeconds: 5 } }),
        ]),
      }),
    );
  }
  const body = reviewBody(0);

  // The echo answers with exactly what probe-lint answers, so both send the same bytes.
  const responseFile = join(pki.directory, 'response.json');
  const expected = validateRequest(
    JSON.parse(body).request,
    new LintSession(new Engine(RULES, { config: {}, cluster: unknownCluster() })),
    new NamespacePolicy({}, undefined),
    {
      limits: DEFAULT_LIMITS,
      annotationsInEnforce: false,
    },
  ).response;
  writeFileSync(responseFile, JSON.stringify(expected));

  function rssMegabytes(child: ChildProcess): number {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
  }

  /** Starts a server with its output discarded (as a log shipper would take it), and waits until /healthz answers. */
  async function start(args: string[], port: number): Promise<ChildProcess> {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    for (let attempt = 0; attempt < 200; attempt++) {
      const ok = await new Promise<boolean>((resolve) => {
        const req = httpsRequest({ host: '127.0.0.1', port, path: '/healthz', ca: readFileSync(pki.caCert), agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode === 200 || res.statusCode === 404);
        });
        req.on('error', () => resolve(false));
        req.end();
      });
      if (ok) return child;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill();
    throw new Error(`server ${args.join(' ')} did not start`);
  }

  async function load(label: string, port: number, child: ChildProcess) {
    const rss: number[] = [rssMegabytes(child)];
    const sampler = setInterval(() => rss.push(rssMegabytes(child)), 1000);
    let sent = 0;
    const result = await autocannon({
      url: `https://127.0.0.1:${port}/validate`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      requests: [{ setupRequest: (request) => ({ ...request, body: reviewBody(++sent) }) }],
      connections,
      duration: seconds,
      tlsOptions: { ca: readFileSync(pki.caCert) },
    });
    clearInterval(sampler);
    rss.push(rssMegabytes(child));
    const summary = {
      label,
      requestsPerSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.non2xx,
      rssStart: rss[1] ?? rss[0]!,
      rssEnd: rss.at(-1)!,
      rssMax: Math.max(...rss),
    };
    console.log(
      `${label.padEnd(22)} ${summary.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${summary.p50} ms  p99 ${summary.p99} ms  errors ${summary.errors}  ` +
        `RSS ${summary.rssStart.toFixed(0)} → ${summary.rssEnd.toFixed(0)} MB (max ${summary.rssMax.toFixed(0)})`,
    );
    return summary;
  }

  async function stop(child: ChildProcess) {
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  console.log(
    `${connections} connections, ${seconds} s per turn, ${rounds} rounds, ~${body.length}-byte Deployment reviews (each distinct), ` +
      `${JSON.stringify(expected).length}-byte response (${expected.warnings?.length ?? 0} warnings)`,
  );
  const echoPort = 19443;
  const webhookPort = 19444;
  const rulesPort = 19445;
  const echo = await start([join(here, 'echo-server.js'), cert.cert, cert.key, String(echoPort), responseFile], echoPort);
  const rulesEcho = await start([join(here, 'echo-server.js'), cert.cert, cert.key, String(rulesPort), '--rules'], rulesPort);
  const webhook = await start(
    [join(here, '../src/cli/bin.js'), 'serve', '--port', String(webhookPort), '--host', '127.0.0.1', '--tls-cert', cert.cert, '--tls-key', cert.key],
    webhookPort,
  );
  const echoStartRss = rssMegabytes(echo);
  const webhookStartRss = rssMegabytes(webhook);
  type Run = Awaited<ReturnType<typeof load>>;
  const runs: { echo: Run[]; rules: Run[]; webhook: Run[] } = { echo: [], rules: [], webhook: [] };
  for (let round = 0; round < rounds; round++) {
    runs.echo.push(await load('fastify echo', echoPort, echo));
    runs.rules.push(await load('echo + rules (floor)', rulesPort, rulesEcho));
    runs.webhook.push(await load('probe-lint /validate', webhookPort, webhook));
  }
  await Promise.all([stop(echo), stop(rulesEcho), stop(webhook)]);
  const rps = (list: typeof runs.echo) => median(list.map((run) => run.requestsPerSecond));
  const p99 = median(runs.webhook.map((run) => run.p99));
  const rulesP99 = median(runs.rules.map((run) => run.p99));
  const echoMax = Math.max(...runs.echo.map((run) => run.rssMax));
  const webhookMax = Math.max(...runs.webhook.map((run) => run.rssMax));
  return [
    row(
      'webhook ÷ echo throughput, distinct specs',
      rps(runs.webhook) / rps(runs.echo),
      '≥0.7',
      `${rps(runs.webhook).toFixed(0)} vs ${rps(runs.echo).toFixed(0)} req/s`,
    ),
    floorRow('the echo with the rules behind it ÷ echo', rps(runs.rules) / rps(runs.echo), `${rps(runs.rules).toFixed(0)} req/s`),
    floorRow('webhook ÷ that echo (what the webhook adds)', rps(runs.webhook) / rps(runs.rules), 'log line, metrics, checks of the review'),
    `  webhook p99 at ${connections} connections${' '.repeat(30)} ${String(p99).padStart(5)}  goal ≤10 ms ${p99 <= 10 ? 'met    ' : 'NOT met'}  (echo ${median(runs.echo.map((run) => run.p99))} ms)`,
    `    floor: p99 of the echo with the rules behind it${' '.repeat(11)} ${String(rulesP99).padStart(5)}`,
    row('webhook ÷ echo RSS at start', webhookStartRss / echoStartRss, '≤1.3', `${webhookStartRss.toFixed(0)} vs ${echoStartRss.toFixed(0)} MB`),
    row('webhook ÷ echo peak RSS under load', webhookMax / echoMax, '≤1.3', `${webhookMax.toFixed(0)} vs ${echoMax.toFixed(0)} MB`),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '50' }, rounds: { type: 'string', default: '3' } },
  });
  const rows = await webhookRows({ seconds: Number(values.seconds), connections: Number(values.connections), rounds: Number(values.rounds) });
  console.log(`\nsummary (ratios; each against the echo in this run):\n${rows.join('\n')}`);
}
