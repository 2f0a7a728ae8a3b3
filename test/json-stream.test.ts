// The JSON and SARIF reports are written in chunks, their long lists a few items at a time: the
// text must be, byte for byte, what JSON.stringify(value, null, 2) writes for the whole value.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { streamedJson, streamedList } from '../src/report/json-stream.js';

/** An object with `list` (and `after`, which follows it) `depth` objects down. */
function nestedAt(depth: number, list: unknown, after: unknown): unknown {
  let value: unknown = { list, after };
  for (let level = 1; level < depth; level++) value = { level, inner: value };
  return value;
}

describe('streamed JSON', () => {
  it('writes what JSON.stringify(value, null, 2) writes, at any depth and any number of items', () => {
    const item = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(item, { maxLength: 200 }), fc.jsonValue({ maxDepth: 2 }), (depth, items, after) => {
        // Each item is given through toValue, as the reports give findings.
        const list = streamedList(items, (value: unknown) => ({ value }));
        const text = [...streamedJson(nestedAt(depth, list.placeholder, after), [list])].join('');
        const whole = nestedAt(
          depth,
          items.map((value) => ({ value })),
          after,
        );
        assert.equal(text, JSON.stringify(whole, null, 2) + '\n');
      }),
      { numRuns: 300 },
    );
  });

  it('hands the text on in chunks of up to 64 KiB, not as one string, an item larger than that whole', () => {
    const items = Array.from({ length: 2_000 }, (_, index) => ({ index, text: 'x'.repeat(index === 1_000 ? 100_000 : 200) }));
    const list = streamedList(items, (value) => value);
    const chunks = [...streamedJson({ findings: list.placeholder }, [list])];
    assert.ok(chunks.length > 5, `${chunks.length} chunks`);
    const large = chunks.filter((chunk) => chunk.length > 64 * 1024);
    assert.equal(large.length, 1);
    assert.ok(large[0]!.includes('x'.repeat(100_000)));
    assert.equal(chunks.join(''), JSON.stringify({ findings: items }, null, 2) + '\n');
  });
});
