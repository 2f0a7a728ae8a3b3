// Seeded fuzzing over real manifests: the CLI (lint and --fix, in-process through main()) and the
// webhook over HTTPS. Bounded and reproducible: FUZZ_SEED and FUZZ_CASES replay or widen a run.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fastJsonPatch from 'fast-json-patch';
import { main } from '../src/cli/main.js';
import { isKubeObject } from '../src/model/resource.js';
import { SourceFile } from '../src/source/parse/source-file.js';
import { sameValue } from '../src/fix/same-value.js';
import { FUZZ_SEED, mutate, Random, seedManifests } from './fuzz-inputs.js';
import { startHarness, type Harness } from './webhook-harness.js';

const CASES = Number(process.env.FUZZ_CASES ?? 2500);
const cwd = mkdtempSync(join(tmpdir(), 'probe-lint-fuzz-'));

async function cli(argv: string[], stdin: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: () => stdin,
    isTty: false,
    env: {},
    cwd,
  });
  return { code, stdout, stderr };
}

/** kind and name of each document, or the value itself for documents that are not objects. */
function documentsOf(text: string): { parsed: boolean; values: unknown[] } {
  const source = new SourceFile('-', text);
  return { parsed: source.error === undefined, values: source.documents.map((document) => document.value) };
}

function identity(value: unknown): unknown {
  return isKubeObject(value) ? [value.kind, value.apiVersion, value.metadata?.name] : value;
}

describe(`fuzzing the CLI (seed ${FUZZ_SEED}, ${CASES} mutated manifests)`, () => {
  it('lint and --fix never crash, always report, never lose a document, and --fix output always parses', async () => {
    const random = new Random(FUZZ_SEED);
    const seeds = seedManifests(random, 300);
    let fixedFiles = 0;
    let withErrors = 0;
    for (let index = 0; index < CASES; index++) {
      const seed = random.pick(seeds);
      const input = mutate(seed.text, random);
      const where = `case ${index} (FUZZ_SEED=${FUZZ_SEED}), mutated from ${seed.path}, kept in ${join(cwd, `case-${index}.yaml`)}`;
      try {
        const lint = await cli(['-', '--format', 'json'], input);
        assert.ok([0, 1, 2].includes(lint.code), `exit ${lint.code}: ${where}`);
        assert.doesNotMatch(lint.stderr, /internal error/, where);
        const report = JSON.parse(lint.stdout) as { findings: { rule: string; message: string; line?: number }[]; inputErrors: unknown[]; summary: object };
        assert.ok(Array.isArray(report.findings) && report.summary !== undefined, where);
        for (const finding of report.findings) {
          assert.ok(
            finding.message.length > 0 && !/undefined|\[object Object\]|NaN/.test(finding.message),
            `${finding.rule}: "${finding.message}" in ${where}`,
          );
        }
        if (lint.code === 1 && report.findings.length === 0) assert.fail(`exit 1 without a finding: ${where}`);
        if (report.inputErrors.length > 0) withErrors++;

        const before = documentsOf(input);
        if (!before.parsed) continue;
        const fix = await cli(['-', '--fix', '--fix-type', 'fix,suggestion', '--format', 'json'], input);
        assert.ok([0, 1, 2].includes(fix.code), `--fix exit ${fix.code}: ${where}`);
        assert.doesNotMatch(fix.stderr, /internal error/, where);
        const after = documentsOf(fix.stdout);
        assert.ok(after.parsed, `--fix output does not parse: ${where}\n--- output:\n${fix.stdout.slice(0, 2000)}`);
        assert.equal(after.values.length, before.values.length, `--fix changed the number of documents: ${where}`);
        after.values.forEach((value, position) => {
          assert.ok(sameValue(identity(value), identity(before.values[position])), `--fix changed what document ${position} is: ${where}`);
          if (!isKubeObject(value)) assert.ok(sameValue(value, before.values[position]), `--fix changed document ${position}, which is no object: ${where}`);
        });
        if (fix.stdout !== input) fixedFiles++;
      } catch (error) {
        writeFileSync(join(cwd, `case-${index}.yaml`), input);
        throw error;
      }
    }
    // The mutations must reach the fixes and the error paths, or the run proves little.
    assert.ok(fixedFiles > CASES / 50, `only ${fixedFiles} inputs were changed by --fix`);
    assert.ok(withErrors > CASES / 20, `only ${withErrors} inputs had input errors`);
  });
});

describe(`fuzzing the webhook over HTTPS (seed ${FUZZ_SEED})`, () => {
  let harness: Harness;
  let agent: Agent;
  before(async () => {
    harness = await startHarness({ webhook: { mode: 'enforce', injectStartupProbe: true, mutateTemplates: true } });
    agent = new Agent({ keepAlive: true, maxSockets: 8, ca: readFileSync(harness.caFile) });
  });
  after(async () => {
    agent.destroy();
    await harness.server.close();
  });

  const post = (path: string, body: string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: harness.port, path, method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.end(body);
    });

  it('answers every review with a valid AdmissionReview for its uid, or a 4xx with a JSON body; never a 5xx', async () => {
    const random = new Random(FUZZ_SEED + 1);
    const seeds = seedManifests(random, 200);
    const objectsOf = (list: typeof seeds) => list.flatMap((seed) => documentsOf(seed.text).values).filter(isKubeObject);
    const objects = objectsOf(seeds);
    // The fixtures of the one rule the webhook patches with: a fifth of the cases start from them, so
    // that the patch path is reached with the rule fixtures alone (the corpus lives beside the checkout only).
    const patchable = objectsOf(seeds.filter((seed) => seed.path.includes('/liveness-without-startup-probe/fixtures/fail/')));
    const cases = Math.ceil(CASES / 2);
    const tally = { answered: 0, patched: 0, denied: 0, refused: 0 };
    for (let index = 0; index < cases; index++) {
      const object = random.pick(random.next() < 0.2 ? patchable : objects);
      const mutated = documentsOf(mutate(JSON.stringify(object, null, 2), random)).values[0];
      const uid = randomUUID();
      const review: Record<string, any> = {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: {
          uid,
          kind: { group: '', version: 'v1', kind: isKubeObject(mutated) ? mutated.kind : 'Pod' },
          resource: { group: '', version: 'v1', resource: 'pods' },
          namespace: 'fuzz',
          operation: random.pick(['CREATE', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT']),
          userInfo: { username: 'tenant' },
          object: mutated ?? null,
          oldObject: random.next() < 0.3 ? object : null,
          dryRun: random.next() < 0.1,
        },
      };
      // Now and then the envelope itself is wrong.
      if (random.next() < 0.05) review.request[random.pick(['uid', 'operation', 'kind', 'object'])] = random.pick([null, 7, {}, [], 'x'.repeat(200)]);
      const body = JSON.stringify(review);
      const path = random.pick(['/validate', '/mutate']);
      const reply = await post(path, body);
      const where = `case ${index} (FUZZ_SEED=${FUZZ_SEED}) ${path}: ${body.slice(0, 1500)}\n→ ${reply.status} ${reply.text.slice(0, 500)}`;
      assert.ok(reply.status < 500, where);
      const answer = JSON.parse(reply.text) as Record<string, any>;
      if (reply.status !== 200) {
        assert.ok(reply.status >= 400 && typeof answer.message === 'string' && answer.statusCode === reply.status, where);
        tally.refused++;
        continue;
      }
      assert.equal(answer.apiVersion, 'admission.k8s.io/v1', where);
      assert.equal(answer.kind, 'AdmissionReview', where);
      assert.equal(answer.response.uid, review.request.uid, where);
      assert.equal(typeof answer.response.allowed, 'boolean', where);
      for (const warning of answer.response.warnings ?? []) assert.ok(typeof warning === 'string' && [...warning].length <= 256, where);
      if (answer.response.patch !== undefined) {
        const operations = JSON.parse(Buffer.from(answer.response.patch, 'base64').toString('utf8'));
        fastJsonPatch.applyPatch(structuredClone(review.request.object), operations, true);
        tally.patched++;
      }
      if (answer.response.allowed === false) tally.denied++;
      tally.answered++;
    }
    assert.ok(tally.answered > cases / 2 && tally.denied > 0 && tally.patched > 0 && tally.refused > 0, JSON.stringify(tally));
  });
});
