// Every output format's whole output for the bundled example, pinned: a change of wording, order or
// shape shows in the diff of test/golden/, reviewed like code (UPDATE_SNAPSHOTS=1 rewrites it).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPORT_FORMATS } from '../src/report/format-names.js';
import { ROOT, runCli } from './helpers.js';

/** The SARIF source root is the working directory: the same on every machine once written as ROOT. */
const portable = (text: string) => text.replaceAll(`file://${ROOT}/`, 'file:///ROOT/');

const EXTENSIONS: Record<string, string> = {
  json: 'json',
  sarif: 'json',
  gitlab: 'json',
  junit: 'xml',
  markdown: 'md',
  html: 'html',
  openreports: 'json',
  policyreport: 'json',
};

describe('golden output of every format for examples/shop.yaml', () => {
  for (const format of REPORT_FORMATS) {
    it(format, () => {
      const run = runCli(['examples/shop.yaml', '--format', format], {
        env: { GITHUB_SERVER_URL: '', GITHUB_REPOSITORY: '', GITHUB_SHA: '', SOURCE_DATE_EPOCH: '1796083200' },
      });
      assert.equal(run.code, 1, run.stderr);
      const golden = join(ROOT, 'test/golden', `shop.${format}.${EXTENSIONS[format] ?? 'txt'}`);
      if (process.env.UPDATE_SNAPSHOTS === '1' || !existsSync(golden)) {
        if (process.env.CI === 'true' && !existsSync(golden)) assert.fail(`${golden} is missing: run UPDATE_SNAPSHOTS=1 npm test and review it`);
        writeFileSync(golden, portable(run.stdout));
        return;
      }
      assert.equal(
        portable(run.stdout),
        readFileSync(golden, 'utf8'),
        `${golden} differs: review the change, and run UPDATE_SNAPSHOTS=1 npm test to accept it`,
      );
    });
  }
  it('timeline, as text and JSON', () => {
    for (const format of ['text', 'json']) {
      const run = runCli(['timeline', 'examples/shop.yaml', '--format', format]);
      assert.equal(run.code, 0, run.stderr);
      const golden = join(ROOT, 'test/golden', `shop.timeline.${format === 'json' ? 'json' : 'txt'}`);
      if (process.env.UPDATE_SNAPSHOTS === '1' || !existsSync(golden)) {
        if (process.env.CI === 'true' && !existsSync(golden)) assert.fail(`${golden} is missing`);
        writeFileSync(golden, run.stdout);
        continue;
      }
      assert.equal(run.stdout, readFileSync(golden, 'utf8'), `${golden} differs`);
    }
  });
});
