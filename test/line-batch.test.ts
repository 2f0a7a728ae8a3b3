// The webhook's log lines reach sonic-boom a batch at a time (src/webhook/line-batch.ts): one write
// per turn of the event loop, never more than a bounded batch held, nothing lost or reordered.
import assert from 'node:assert/strict';
import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import pino from 'pino';
import { LineBatch } from '../src/webhook/line-batch.js';

/** A real sonic-boom writing a file, with the writes it is given counted. */
function countedDestination() {
  const file = join(mkdtempSync(join(tmpdir(), 'probe-lint-line-batch-')), 'log');
  // An open descriptor, as the webhook's stdout: ready at once.
  const stream = pino.destination({ dest: openSync(file, 'w'), sync: false, minLength: 4096 });
  const writes: number[] = [];
  const write = stream.write.bind(stream);
  stream.write = (data: string) => {
    writes.push(data.length);
    return write(data);
  };
  return { file, stream, writes };
}

describe('log lines batched for sonic-boom', () => {
  it('hands the lines of one turn on in one write at its end, in order, and writes them all', async () => {
    const { file, stream, writes } = countedDestination();
    const batch = new LineBatch(stream);
    const lines = Array.from({ length: 50 }, (_, index) => `{"msg":"review","i":${index}}\n`);
    for (const line of lines) batch.write(line);
    assert.deepEqual(writes, [], 'nothing is handed on before the turn ends');
    await nextTurn();
    assert.deepEqual(writes, [lines.join('').length], 'one write for the turn');
    for (const line of lines) batch.write(line);
    batch.flushSync();
    assert.equal(readFileSync(file, 'utf8'), lines.join('') + lines.join(''));
    stream.destroy();
  });

  it('holds no more than a bounded batch of a burst written in one synchronous stretch', () => {
    const { file, stream, writes } = countedDestination();
    const batch = new LineBatch(stream);
    const line = `{"msg":"line","padding":"${'x'.repeat(1000)}"}\n`;
    for (let index = 0; index < 300; index++) batch.write(line);
    assert.ok(writes.length >= 4, `handed on during the burst: ${writes.length} writes`);
    assert.ok(Math.max(...writes) <= 64 * 1024 + line.length, `no batch past the bound: ${Math.max(...writes)}`);
    batch.flushSync();
    assert.equal(readFileSync(file, 'utf8'), line.repeat(300));
    stream.destroy();
  });

  it('flush hands on what it holds before asking sonic-boom to write', async () => {
    const { file, stream } = countedDestination();
    const batch = new LineBatch(stream);
    batch.write('{"msg":"a"}\n');
    await new Promise<void>((resolve, reject) => batch.flush((error) => (error ? reject(error) : resolve())));
    assert.equal(readFileSync(file, 'utf8'), '{"msg":"a"}\n');
    stream.destroy();
  });
});
