// Webhook load: autocannon against the real probe-lint HTTPS server and, in the same run, against a
// bare fastify HTTPS echo of the same AdmissionReview. Reports req/s, p99 and their ratio, and the
// server's RSS over the run. Goal: ≥ 0.7 of the echo's throughput, p99 ≤ 10 ms at 50 connections,
// RSS flat.
//   node dist/bench/webhook-load.js [--seconds 10] [--connections 50]
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { writeFileSync } from 'node:fs';
import { RULES } from '../rules/index.js';
import { unknownCluster } from '../src/engine/cluster-facts.js';
import { Engine } from '../src/engine/engine.js';
import { DEFAULT_LIMITS } from '../src/webhook/admission-lint.js';
import { NamespacePolicy } from '../src/webhook/namespace-policy.js';
import { validateRequest } from '../src/webhook/validate.js';
import { admissionReview, container, deployment } from '../test/admission.js';
import { makeTestPki } from '../test/tls.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' } } });
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const here = dirname(fileURLToPath(import.meta.url));

const pki = makeTestPki();
const cert = pki.issue('bench');
const body = JSON.stringify(
  admissionReview({
    operation: 'CREATE',
    object: deployment([
      container('web', {
        livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, timeoutSeconds: 10, initialDelaySeconds: 60 },
        readinessProbe: { httpGet: { path: '/healthz', port: 8080 } },
      }),
      container('sidecar', { livenessProbe: { exec: { command: ['/bin/check'] }, periodSeconds: 5 } }),
    ]),
  }),
);

// The echo answers with exactly what probe-lint answers, so both send the same bytes.
const responseFile = join(pki.directory, 'response.json');
const expected = validateRequest(JSON.parse(body).request, new Engine(RULES, { config: {}, cluster: unknownCluster() }), new NamespacePolicy({}, undefined), {
  limits: DEFAULT_LIMITS,
  annotationsInEnforce: false,
}).response;
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
  const result = await autocannon({
    url: `https://127.0.0.1:${port}/validate`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
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
  `${connections} connections, ${seconds} s each, ${body.length}-byte Deployment review, ${JSON.stringify(expected).length}-byte response (${expected.warnings?.length ?? 0} warnings)`,
);
const echoPort = 19443;
const webhookPort = 19444;
const echo = await start([join(here, 'echo-server.js'), cert.cert, cert.key, String(echoPort), responseFile], echoPort);
const baseline = await load('fastify echo', echoPort, echo);
await stop(echo);
const webhook = await start(
  [join(here, '../src/cli/bin.js'), 'serve', '--port', String(webhookPort), '--host', '127.0.0.1', '--tls-cert', cert.cert, '--tls-key', cert.key],
  webhookPort,
);
const probeLint = await load('probe-lint /validate', webhookPort, webhook);
await stop(webhook);
console.log(
  `throughput ratio probe-lint ÷ echo: ${(probeLint.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)} (goal ≥ 0.7); p99 ${probeLint.p99} ms (goal ≤ 10 ms)`,
);
