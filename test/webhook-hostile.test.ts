// The webhook against its tenants and against clients that misbehave: enforcement stays the
// platform's, every review is answered, and nothing a request carries grows memory or holds a
// connection open.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect, type TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import type { ProbeLintConfig } from '../src/engine/config.js';
import { admissionReview, container, pod } from './admission.js';
import { startHarness, withHarness, type Harness } from './webhook-harness.js';

/** A container whose readiness probe sets terminationGracePeriodSeconds: an error the API server rejects. */
const rejected = (name = 'web') =>
  container(name, {
    livenessProbe: { httpGet: { path: '/livez', port: 8080 } },
    readinessProbe: { httpGet: { path: '/ready', port: 8080 }, terminationGracePeriodSeconds: 5 },
  });
const clean = (name = 'web') =>
  container(name, { livenessProbe: { httpGet: { path: '/livez', port: 8080 } }, readinessProbe: { httpGet: { path: '/readyz', port: 8080 } } });

const ignoreAll = { 'probe-lint.dev/ignore': '* # we know better' };

async function counter(
  harness: Harness,
  metric: 'suppressed' | 'unreadable' | 'badRequests',
): Promise<{ labels: Record<string, string | number>; value: number }[]> {
  return (await harness.server.metrics[metric].get()).values;
}

describe('tenants cannot switch enforcement off', () => {
  it("in enforce mode, the object's own ignore annotation does not lift a denial", async () => {
    await withHarness({ webhook: { mode: 'enforce' } }, async (harness) => {
      const reply = await harness.post('/validate', admissionReview({ operation: 'CREATE', object: pod([rejected()], { annotations: ignoreAll }) }));
      assert.equal(reply.json.response.allowed, false);
      assert.match(reply.json.response.status.message, /readiness-termination-grace-period/);
    });
  });

  it('lets annotations lift a denial only when the config says so (webhook.annotationsInEnforce)', async () => {
    await withHarness({ webhook: { mode: 'enforce', annotationsInEnforce: true } }, async (harness) => {
      const reply = await harness.post('/validate', admissionReview({ operation: 'CREATE', object: pod([rejected()], { annotations: ignoreAll }) }));
      assert.equal(reply.json.response.allowed, true);
    });
  });

  it('in warn mode, an annotation still suppresses the warning, and the suppression is counted', async () => {
    await withHarness({ webhook: { mode: 'warn' } }, async (harness) => {
      const bare = await harness.post('/validate', admissionReview({ operation: 'CREATE', object: pod([rejected()]) }));
      assert.ok(bare.json.response.warnings.some((warning: string) => warning.includes('readiness-termination-grace-period')));
      const annotated = await harness.post('/validate', admissionReview({ operation: 'CREATE', object: pod([rejected()], { annotations: ignoreAll }) }));
      assert.equal(annotated.json.response.allowed, true);
      assert.equal(annotated.json.response.warnings, undefined);
      const suppressed = await counter(harness, 'suppressed');
      assert.deepEqual(
        suppressed.filter((value) => value.value > 0).map((value) => value.labels.rule),
        ['readiness-termination-grace-period'],
      );
    });
  });

  it('honours no annotation when the config turns them off (what serve --strict does)', async () => {
    await withHarness({ suppression: { annotations: false } }, async (harness) => {
      const reply = await harness.post('/validate', admissionReview({ operation: 'CREATE', object: pod([rejected()], { annotations: ignoreAll }) }));
      assert.ok(reply.json.response.warnings.some((warning: string) => warning.includes('readiness-termination-grace-period')));
    });
  });

  it('honours annotations only for the rules the config lists (suppression.annotationRules)', async () => {
    const config: ProbeLintConfig = { suppression: { annotationRules: ['missing-readiness-probe'] } };
    await withHarness(config, async (harness) => {
      const reply = await harness.post('/validate', admissionReview({ operation: 'CREATE', object: pod([rejected()], { annotations: ignoreAll }) }));
      assert.ok(reply.json.response.warnings.some((warning: string) => warning.includes('readiness-termination-grace-period')));
    });
  });

  it('reads the namespace label probe-lint.dev/mode as tighten-only by default: "off" cannot loosen an enforced namespace', async () => {
    const labels = { shop: { 'probe-lint.dev/mode': 'off' } };
    await withHarness(
      { webhook: { mode: 'enforce' } },
      async (harness) => {
        const reply = await harness.post('/validate', admissionReview({ operation: 'CREATE', object: pod([rejected()]) }));
        assert.equal(reply.json.response.allowed, false);
      },
      { labels },
    );
  });
});

describe('work per review is bounded', () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness({ webhook: { mode: 'enforce', injectStartupProbe: true, maxContainersPerReview: 500 } });
  });
  after(async () => harness.server.close());

  const slowStarters = (count: number) =>
    Array.from({ length: count }, (_, index) =>
      container(`c${index}`, {
        livenessProbe: { httpGet: { path: '/livez', port: 8080 }, initialDelaySeconds: 120 },
        readinessProbe: { httpGet: { path: '/readyz', port: 8080 } },
      }),
    );

  it('answers /mutate for 8,000 containers without linting them, and answers a concurrent review as usual', async () => {
    const huge = admissionReview({ operation: 'CREATE', object: pod(slowStarters(8000)) });
    const small = admissionReview({ operation: 'CREATE', object: pod(slowStarters(1)) });
    const [hugeReply, smallReply] = await Promise.all([harness.post('/mutate', huge), harness.post('/mutate', small)]);
    assert.equal(hugeReply.status, 200);
    assert.equal(hugeReply.json.response.uid, huge.request.uid);
    assert.equal(hugeReply.json.response.allowed, true);
    assert.equal(hugeReply.json.response.patch, undefined, 'past the limit nothing is patched');
    assert.equal(smallReply.json.response.patchType, 'JSONPatch', 'the small pod is patched as usual');
  });

  it('denies an object past the container limit in enforce mode with one short reason, and counts it', async () => {
    const reply = await harness.post('/validate', admissionReview({ operation: 'CREATE', object: pod(slowStarters(8000)) }));
    assert.equal(reply.json.response.allowed, false);
    assert.match(reply.json.response.status.message, /8000 containers, more than the 500 probe-lint checks per object \(webhook\.maxContainersPerReview\)/);
    assert.ok(reply.text.length < 2000, `the answer is ${reply.text.length} bytes`);
    assert.ok((await counter(harness, 'unreadable')).some((value) => value.labels.endpoint === 'validate' && value.value >= 1));
  });

  it('keeps a denial short: at most 20 findings listed, the rest counted', async () => {
    const reply = await harness.post(
      '/validate',
      admissionReview({ operation: 'CREATE', object: pod(Array.from({ length: 400 }, (_, index) => rejected(`c${index}`))) }),
    );
    assert.equal(reply.json.response.allowed, false);
    const message: string = reply.json.response.status.message;
    assert.ok(message.split('\n').length <= 22, `${message.split('\n').length} lines`);
    assert.match(message, /and 380 more/);
    assert.ok(Buffer.byteLength(message) < 16_384, `${Buffer.byteLength(message)} bytes`);
  });

  it('answers 100,000-deep JSON with a well-formed review: allowed with a warning on /mutate, denied in enforce mode, on CREATE and UPDATE', async () => {
    const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const object = (extra: string) => `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"deep","namespace":"shop"},"spec":{"containers":[]},"x":${extra}}`;
    for (const [endpoint, operation] of [
      ['/mutate', 'CREATE'],
      ['/validate', 'CREATE'],
      ['/validate', 'UPDATE'],
    ] as const) {
      const review = admissionReview({ operation, object: pod([clean()]) });
      const text = JSON.stringify(review)
        .replace(/"object":\{.*?"kind":"Pod"/, `"object":${object(deep(100_000))},"unused":{"kind":"Pod"`)
        .replace('"oldObject":null', operation === 'UPDATE' ? `"oldObject":${object(deep(100_000))}` : '"oldObject":null');
      const reply = await harness.post(endpoint, text);
      assert.equal(reply.status, 200, `${endpoint} ${operation}: ${reply.text.slice(0, 200)}`);
      assert.equal(reply.json.response.uid, review.request.uid);
      if (endpoint === '/validate') {
        assert.equal(reply.json.response.allowed, false);
        assert.match(reply.json.response.status.message, /nested deeper than 100 levels/);
      } else {
        assert.equal(reply.json.response.allowed, true);
      }
    }
  });

  it('answers a review with "__proto__" and "constructor" keys like any other, with no prototype touched', async () => {
    const review = admissionReview({ operation: 'CREATE', object: pod([rejected()]) });
    const text = JSON.stringify(review).replace(
      '"spec":{',
      '"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"spec":{"__proto__":{"containers":[]},',
    );
    const reply = await harness.post('/validate', text);
    assert.equal(reply.status, 200);
    assert.equal(reply.json.response.uid, review.request.uid);
    assert.equal(reply.json.response.allowed, false, 'the real containers are still checked');
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
  });

  it('refuses a uid longer than the API server sends, and logs only its start', async () => {
    const review = admissionReview({ operation: 'CREATE', object: pod([clean()]) });
    review.request.uid = 'u'.repeat(1_000_000);
    const logged = harness.logs.lines.length;
    const reply = await harness.post('/validate', review);
    assert.equal(reply.status, 400);
    assert.match(reply.json.message, /uid/);
    const lines = harness.logs.lines.slice(logged).map((line) => JSON.stringify(line));
    assert.ok(lines.length > 0 && lines.every((line) => line.length < 4096), `log lines of ${lines.map((line) => line.length).join(', ')} bytes`);
  });
});

describe('metrics stay bounded', () => {
  it('labels requests to unknown URLs "other", however many distinct URLs arrive', async () => {
    await withHarness({}, async (harness) => {
      // Node's own series (GC kinds, event loop) appear as the process runs; only the webhook's count here.
      const webhookSeries = (text: string) =>
        text
          .split('\n')
          .filter((line) => !/^(?:# (?:HELP|TYPE) )?probe_lint_(?:process|nodejs)_/.test(line))
          .join('\n').length;
      const before = webhookSeries((await harness.get('/metrics')).text);
      for (let index = 0; index < 300; index++) {
        const reply = await harness.get(`/probe-${index}-${'x'.repeat(200)}?q=${index}`);
        assert.equal(reply.status, 404);
      }
      const metrics = (await harness.get('/metrics')).text;
      assert.ok(!metrics.includes('probe-1-'), 'no URL becomes a label');
      const notFound = (await counter(harness, 'badRequests')).filter((value) => value.labels.status === '404');
      assert.deepEqual(
        notFound.map((value) => [value.labels.endpoint, value.value]),
        [['other', 300]],
      );
      const growth = webhookSeries(metrics) - before;
      assert.ok(growth < 2000, `the webhook's metrics grew by ${growth} bytes`);
    });
  });
});

describe('connections that never finish are cut off', () => {
  const limits = { handshakeTimeoutMs: 500, headersTimeoutMs: 500, requestTimeoutMs: 1000, keepAliveTimeoutMs: 1000, checkIntervalMs: 100 };
  let harness: Harness;
  before(async () => {
    harness = await startHarness({}, { connectionLimits: limits });
  });
  after(async () => harness.server.close());

  /** Resolves with how the server ended the connection; rejects if it is still open after `within` ms. */
  function closedBy(socket: TLSSocket, within: number): Promise<string> {
    return new Promise((resolve, reject) => {
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`still open after ${within} ms`));
      }, within);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(received);
      });
      socket.on('error', () => undefined);
    });
  }

  const open = (): Promise<TLSSocket> =>
    new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: harness.port, ca: readFileSync(harness.caFile), servername: 'localhost' }, () => resolve(socket));
      socket.once('error', reject);
    });

  it('closes a TLS connection that sends nothing', async () => {
    const socket = await open();
    await closedBy(socket, 8000);
  });

  it('closes a connection whose headers trickle in', async () => {
    const socket = await open();
    socket.write('POST /validate HTTP/1.1\r\nHost: x\r\n');
    const timer = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 200);
    try {
      await closedBy(socket, 8000);
    } finally {
      clearInterval(timer);
    }
  });

  it('answers 408 to a body sent one byte at a time, then closes', async () => {
    const socket = await open();
    socket.write('POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n');
    const timer = setInterval(() => socket.writable && socket.write('{'), 200);
    try {
      const received = await closedBy(socket, 8000);
      assert.match(received, /^HTTP\/1\.1 408/);
    } finally {
      clearInterval(timer);
    }
  });

  it('closes an idle keep-alive connection after its answer', async () => {
    const socket = await open();
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const received = await closedBy(socket, 8000);
    assert.match(received, /^HTTP\/1\.1 200/);
  });
});

describe('every received review is answered', () => {
  // Go's HTTP client (the API server's) does not pipeline, but a client may: every review sent on
  // one connection gets its answer, in order, denied ones too (their answers are the larger ones).
  for (const [label, object] of [
    ['denied', () => pod([rejected()])],
    ['allowed', () => pod([clean()])],
  ] as const) {
    // Node 20's HTTP server errors on pipelined requests over TLS once its parser pauses (HPE_PAUSED)
    // and drops the rest; 22 and later answer them all. probe-lint supports 22 and 24.
    const skip = Number(process.versions.node.split('.')[0]) < 22 ? `Node ${process.version} drops pipelined requests (fixed in Node 22)` : false;
    it(`answers 150 ${label} reviews pipelined on one connection, in order`, { skip }, async () => {
      await withHarness({ webhook: { mode: 'enforce' } }, async (harness) => {
        const reviews = Array.from({ length: 150 }, () => admissionReview({ operation: 'CREATE', object: object() }));
        const wire = reviews
          .map((review) => {
            const body = JSON.stringify(review);
            return `POST /validate HTTP/1.1\r\nhost: webhook\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
          })
          .join('');
        const received = await new Promise<string>((resolve, reject) => {
          let text = '';
          const socket = connect({ port: harness.port, host: '127.0.0.1', ca: readFileSync(harness.caFile) }, () => socket.write(wire));
          socket.on('data', (chunk: Buffer) => {
            text += chunk.toString('utf8');
            if ((text.match(/"kind":"AdmissionReview"/g) ?? []).length === reviews.length) socket.end();
          });
          socket.on('close', () => resolve(text));
          socket.on('error', reject);
          socket.setTimeout(20_000, () => socket.destroy(new Error(`timed out with ${(text.match(/HTTP\/1\.1 /g) ?? []).length} answers`)));
        });
        const uids = [...received.matchAll(/"uid":"([^"]+)"/g)].map((match) => match[1]);
        assert.deepEqual(
          uids,
          reviews.map((review) => review.request.uid),
        );
        assert.equal((received.match(/"allowed":false/g) ?? []).length, label === 'denied' ? reviews.length : 0);
      });
    });
  }
});
