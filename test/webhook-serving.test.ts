// Serving: TLS version floor, certificate rotation without restart, client certificates, and the
// `probe-lint serve` process (bad config, SIGTERM with a review in flight).
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { RULES } from '../rules/index.js';
import { unknownCluster } from '../src/engine/cluster-facts.js';
import { Engine } from '../src/engine/engine.js';
import { LintSession } from '../src/lint/index.js';
import { NamespacePolicy } from '../src/webhook/namespace-policy.js';
import { createLogger } from '../src/webhook/logger.js';
import { createWebhookServer } from '../src/webhook/server.js';
import { admissionReview, container, pod } from './admission.js';
import { defaultHost } from '../src/cli/listen-address.js';
import { ROOT, runCli, runNodeAsync, until } from './helpers.js';
import { startServe } from './serve-process.js';
import { makeTestPki, type TestPki } from './tls.js';
import { httpsRequest } from './webhook-client.js';
import { request as plainHttpRequest } from 'node:http';
import { pathToFileURL } from 'node:url';

/** One plain-HTTP request on loopback (the health port). */
function plainRequest(port: number, path: string, method = 'GET', body?: string): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = plainHttpRequest({ host: '127.0.0.1', port, path, method, agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

let pki: TestPki;
before(() => {
  pki = makeTestPki();
});

async function serve(tls: { certFile: string; keyFile: string; clientCaFile?: string }) {
  const server = await createWebhookServer({
    rules: RULES,
    session: new LintSession(new Engine(RULES, { config: {}, cluster: unknownCluster() })),
    policy: new NamespacePolicy({}, undefined),
    webhook: {},
    tls,
    tlsReloadIntervalMs: 50,
    logger: createLogger(
      new (class extends (await import('node:stream')).Writable {
        override _write(_chunk: unknown, _encoding: string, done: () => void) {
          done();
        }
      })(),
    ),
  });
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  return { server, port: (server.app.server.address() as { port: number }).port };
}

function handshake(port: number, options: object): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, ca: readFileSync(pki.caCert), ...options }, () => {
      const protocol = socket.getProtocol() ?? 'unknown';
      socket.end();
      resolve(protocol);
    });
    socket.on('error', (error) => resolve(`error: ${error.message}`));
  });
}

describe('TLS', () => {
  it('speaks TLS 1.2 and 1.3 and refuses older versions', async () => {
    const cert = pki.issue('tls-floor');
    const { server, port } = await serve({ certFile: cert.cert, keyFile: cert.key });
    try {
      assert.equal(await handshake(port, { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' }), 'TLSv1.2');
      assert.equal(await handshake(port, { minVersion: 'TLSv1.3' }), 'TLSv1.3');
      assert.match(await handshake(port, { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT:@SECLEVEL=0' }), /^error: /);
    } finally {
      await server.close();
    }
  });

  it('picks up a rotated certificate from disk without a restart, and keeps a broken pair out', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'probe-lint-rotate-'));
    const first = pki.issue('first');
    const second = pki.issue('second');
    const certFile = join(directory, 'tls.crt');
    const keyFile = join(directory, 'tls.key');
    copyFileSync(first.cert, certFile);
    copyFileSync(first.key, keyFile);
    const { server, port } = await serve({ certFile, keyFile });
    try {
      const get = () => httpsRequest(port, '/healthz', { ca: pki.caCert });
      assert.equal((await get()).peerCertificate?.subject.CN, 'first');
      // A half-written rotation (new certificate, old key) is refused; the old pair keeps serving.
      copyFileSync(second.cert, certFile);
      assert.equal(server.reloadTls(), false);
      assert.equal((await get()).peerCertificate?.subject.CN, 'first');
      copyFileSync(second.key, keyFile);
      // The interval (50 ms here) notices the change by itself.
      let subject = '';
      for (let attempt = 0; attempt < 40 && subject !== 'second'; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        subject = String((await get()).peerCertificate?.subject.CN ?? '');
      }
      assert.equal(subject, 'second');
      const reloads = await server.metrics.tlsReloads.get();
      assert.ok(reloads.values.some((value) => value.labels.result === 'reloaded' && value.value >= 1));
    } finally {
      await server.close();
    }
  });

  it('requires a client certificate signed by the configured CA when one is given', async () => {
    const serverCert = pki.issue('mtls-server');
    const client = pki.issue('apiserver', { client: true });
    const { server, port } = await serve({ certFile: serverCert.cert, keyFile: serverCert.key, clientCaFile: pki.caCert });
    try {
      const review = JSON.stringify(admissionReview({ operation: 'CREATE', object: pod([container('web')]) }));
      const withCert = await httpsRequest(port, '/validate', { body: review, ca: pki.caCert, cert: client.cert, key: client.key });
      assert.equal(withCert.status, 200);
      await assert.rejects(httpsRequest(port, '/validate', { body: review, ca: pki.caCert }));
    } finally {
      await server.close();
    }
  });
});

describe('probe-lint serve', () => {
  it('refuses to start on a bad config, naming the key', () => {
    const cert = pki.issue('bad-config');
    const config = join(mkdtempSync(join(tmpdir(), 'probe-lint-serve-')), 'config.yaml');
    writeFileSync(config, 'webhook:\n  mode: strict\n');
    const run = runCli(['serve', '--port', '0', '--tls-cert', cert.cert, '--tls-key', cert.key, '--config', config]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /refusing to start: bad configuration\n.*config\.yaml:2:9: webhook\.mode: must be one of "enforce", "warn", "off"/);
  });

  it('refuses to start without TLS files, and with a certificate that does not match its key', () => {
    assert.equal(runCli(['serve', '--port', '0']).code, 2);
    const a = pki.issue('a');
    const b = pki.issue('b');
    const run = runCli(['serve', '--port', '0', '--tls-cert', a.cert, '--tls-key', b.key]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /cannot be used together/);
  });

  it('answers /healthz and /readyz over plain HTTP on --health-port, nothing else there, and fails /readyz once draining', async () => {
    const cert = pki.issue('health-port');
    const serve = await startServe(['--host', '127.0.0.1', '--tls-cert', cert.cert, '--tls-key', cert.key, '--health-port', '0', '--shutdown-delay', '2']);
    const health = serve.healthPort!;
    assert.ok(Number.isInteger(health) && health > 0 && health !== serve.port, `health port ${health}`);
    assert.deepEqual(await plainRequest(health, '/healthz'), { status: 200, json: { status: 'ok' } });
    assert.deepEqual(await plainRequest(health, '/readyz?verbose'), { status: 200, json: { status: 'ready' } });
    // The same answers as over HTTPS, where the API server and scrapers keep everything else.
    assert.deepEqual((await httpsRequest(serve.port, '/readyz', { ca: pki.caCert })).json, { status: 'ready' });
    assert.deepEqual(await plainRequest(health, '/metrics'), { status: 404, json: { error: 'Not Found' } });
    assert.deepEqual(await plainRequest(health, '/validate', 'POST', '{"kind":"AdmissionReview"}'), { status: 404, json: { error: 'Not Found' } });
    assert.deepEqual(await plainRequest(health, '/readyz', 'POST', 'x'.repeat(100_000)), { status: 405, json: { error: 'Method Not Allowed' } });
    serve.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(await plainRequest(health, '/readyz'), { status: 503, json: { status: 'not ready' } }, 'not ready once draining');
    assert.deepEqual(await plainRequest(health, '/healthz'), { status: 200, json: { status: 'ok' } }, 'alive while draining');
    assert.equal(await serve.exited, 0);
    await assert.rejects(plainRequest(health, '/healthz'), /ECONNREFUSED/, 'closed with the webhook');
  });

  it('refuses a --health-port that is not a port, or is the HTTPS port', () => {
    const cert = pki.issue('health-port-bad');
    const tls = ['--tls-cert', cert.cert, '--tls-key', cert.key];
    for (const [value, message] of [
      ['http', /--health-port must be a port number \(got "http"\)/],
      ['70000', /--health-port must be a port number/],
      ['8443', /--health-port must differ from --port \(both are 8443\)/],
    ] as const) {
      const run = runCli(['serve', ...tls, '--health-port', value]);
      assert.equal(run.code, 2, value);
      assert.match(run.stderr, message);
    }
  });

  it('on SIGTERM stops accepting, finishes the review in flight, and exits 0', async () => {
    const cert = pki.issue('sigterm');
    const serve = await startServe(['--host', '127.0.0.1', '--tls-cert', cert.cert, '--tls-key', cert.key]);
    const { child, port, exited } = serve;

    // Send half a review, signal, then send the rest: the answer must still arrive.
    const review = admissionReview({ operation: 'CREATE', object: pod([container('web')]) });
    const body = JSON.stringify(review);
    const { request } = await import('node:https');
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/validate',
          method: 'POST',
          ca: readFileSync(pki.caCert),
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          agent: false,
        },
        (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 100));
      setTimeout(() => {
        child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(100)), 300);
      }, 200);
    });
    const reply = await answer;
    assert.equal(reply.status, 200);
    assert.equal(JSON.parse(reply.text).response.uid, review.request.uid);
    assert.equal(await exited, 0);
    assert.match(serve.output(), /shutting down: serving on while the endpoint is removed, then finishing in-flight reviews/);
  });

  it('on SIGTERM under load answers every review it received, tells keep-alive clients to reconnect, and exits 0', async () => {
    const cert = pki.issue('sigterm-load');
    const serve = await startServe(['--host', '127.0.0.1', '--tls-cert', cert.cert, '--tls-key', cert.key, '--shutdown-delay', '1']);
    const { Agent, request } = await import('node:https');
    const agent = new Agent({ keepAlive: true, maxSockets: 16, ca: readFileSync(pki.caCert) });
    const body = JSON.stringify(admissionReview({ operation: 'CREATE', object: pod([container('web')]) }));
    const tally = { answered: 0, failed: [] as string[], closeHeaders: 0, readyAfterSignal: [] as number[] };
    let sending = true;
    const post = () =>
      new Promise<void>((resolve) => {
        const req = request(
          { host: '127.0.0.1', port: serve.port, path: '/validate', method: 'POST', agent, headers: { 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            res.on('end', () => {
              if (res.statusCode === 200) tally.answered++;
              else tally.failed.push(`status ${res.statusCode}`);
              if (res.headers.connection === 'close') tally.closeHeaders++;
              resolve();
            });
          },
        );
        req.on('error', (error) => {
          tally.failed.push(error.message);
          resolve();
        });
        req.end(body);
      });
    // 16 clients send back to back; SIGTERM arrives mid-load, and the load stops halfway through
    // the shutdown delay, as it does once the endpoint is removed from the Service.
    const clients = Array.from({ length: 16 }, async () => {
      while (sending) await post();
    });
    await new Promise((resolve) => setTimeout(resolve, 700));
    serve.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    tally.readyAfterSignal.push((await httpsRequest(serve.port, '/readyz', { ca: pki.caCert })).status);
    await new Promise((resolve) => setTimeout(resolve, 300));
    sending = false;
    await Promise.all(clients);
    agent.destroy();
    assert.equal(await serve.exited, 0);
    assert.deepEqual(tally.failed, [], 'no review the server received went unanswered');
    assert.ok(tally.answered > 100, `${tally.answered} reviews answered`);
    assert.ok(tally.closeHeaders > 0, 'answers after SIGTERM carry Connection: close');
    assert.deepEqual(tally.readyAfterSignal, [503], '/readyz fails once draining');
  });

  it("writes a review's log line while the server keeps running, not when a buffer fills", async () => {
    const cert = pki.issue('log-flush');
    const serve = await startServe(['--host', '127.0.0.1', '--tls-cert', cert.cert, '--tls-key', cert.key]);
    try {
      const review = admissionReview({ operation: 'CREATE', object: pod([container('web')]) });
      const reply = await httpsRequest(serve.port, '/validate', { body: JSON.stringify(review), ca: pki.caCert });
      assert.equal(reply.status, 200);
      // One line never fills the buffer: it shows only because the logger flushes on its interval.
      // The wait is generous so that a loaded machine does not fail it; no speed is asserted.
      await until(() => serve.output().includes(`"uid":"${review.request.uid}"`), 'the review is logged while the server keeps running', 15_000);
      // The process's logger is the one whose dropped lines /metrics counts.
      const metrics = await httpsRequest(serve.port, '/metrics', { ca: pki.caCert });
      assert.match(metrics.text, /^probe_lint_log_lines_dropped_total 0$/m);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });

  it('holds at most LOG_BUFFER_BYTES of log lines while stdout falls behind: the rest are dropped, counted, and said in a warning', async () => {
    // The webhook's own logger in a process of its own, logging 40 MB faster than any pipe drains
    // (in one synchronous loop, so no write completes until it ends).
    const logger = pathToFileURL(join(ROOT, 'dist/src/webhook/logger.js')).href;
    const script = `
      import { createLogger, LOG_BUFFER_BYTES } from ${JSON.stringify(logger)};
      let drops = 0;
      const log = createLogger(undefined, () => drops++);
      const padding = 'x'.repeat(1000);
      for (let i = 0; i < 40000; i++) log.info({ i, padding }, 'line');
      process.stderr.write(JSON.stringify({ drops, limit: LOG_BUFFER_BYTES }));
      setTimeout(() => process.exit(0), 2500);`;
    const { code, stdout, stderr } = await runNodeAsync(['--input-type=module', '-e', script]);
    assert.equal(code, 0, stderr);
    const { drops, limit } = JSON.parse(stderr) as { drops: number; limit: number };
    const lines = stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { msg: string; i?: number; droppedLines?: number });
    const written = lines.filter((line) => line.msg === 'line');
    assert.ok(drops > 0, 'lines past the bound are dropped');
    assert.equal(written.length + drops, 40000, 'every line is either written or counted as dropped');
    assert.ok(written.length * 1000 <= limit, `at most the bound is held: ${written.length} lines of over 1 KB each`);
    assert.deepEqual(
      written.slice(0, 3).map((line) => line.i),
      [0, 1, 2],
      'the lines kept are the first ones, in order',
    );
    const warning = lines.find((line) => line.msg.startsWith('log lines dropped'));
    assert.equal(warning?.droppedLines, drops, 'a warning says how many');
  });

  it('listens on every IPv6 and IPv4 address by default when the host has IPv6', async () => {
    const cert = pki.issue('dual-stack');
    const serve = await startServe(['--tls-cert', cert.cert, '--tls-key', cert.key]);
    try {
      assert.equal(serve.host, defaultHost());
      if (serve.host === '::') {
        // Reached over IPv4 loopback, though bound to "::".
        assert.equal((await httpsRequest(serve.port, '/healthz', { ca: pki.caCert })).status, 200);
      }
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });
});
