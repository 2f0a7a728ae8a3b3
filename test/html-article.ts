// What the HTML report shows of one audit finding, for the offline and the real-cluster audit tests:
// its own element by the JSON fingerprint, what the cluster showed, and its likely causes linked.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliAsync, type CliRun } from './helpers.js';

/** `audit -A --format json --fail-on never --since WINDOW` with the HTML report of the same run beside it. */
export async function auditWithHtml(kubeconfig: string, since: string): Promise<CliRun & { html: string }> {
  const directory = mkdtempSync(join(tmpdir(), 'probe-lint-audit-html-'));
  try {
    const page = join(directory, 'audit.html');
    const run = await runCliAsync([
      'audit',
      '-A',
      '--kubeconfig',
      kubeconfig,
      '--format',
      'json',
      '--report',
      `html=${page}`,
      '--fail-on',
      'never',
      '--since',
      since,
    ]);
    assert.equal(run.code, 0, run.stderr);
    return { ...run, html: readFileSync(page, 'utf8') };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

interface RuntimeFinding {
  fingerprint: string;
  severity: string;
  rule: string;
  evidence: { livenessKills: number };
  causes: { rule: string }[];
}

/** Asserts the page holds `finding` as the JSON report gave it; returns its element's markup. */
export function assertRuntimeArticle(html: string, finding: RuntimeFinding): string {
  const article = new RegExp(
    `<article class="finding" id="${finding.fingerprint}" data-severity="${finding.severity}" data-rule="${finding.rule}"[\\s\\S]*?</article>`,
  ).exec(html)?.[0];
  assert.ok(article, 'the runtime finding has its own element');
  assert.match(article, /<summary>What the cluster showed<\/summary><pre class="evidence" tabindex="0">\{/);
  assert.ok(article.includes(`"livenessKills": ${finding.evidence.livenessKills}`), 'the kills counted');
  assert.ok(finding.causes.length > 0);
  for (const cause of finding.causes) assert.ok(article.includes(`/${cause.rule}/README.md">${cause.rule}</a>`), `the cause ${cause.rule} linked`);
  return article;
}
