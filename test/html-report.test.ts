// The HTML report (-f html): one page that fetches nothing, whose findings carry the fingerprints the
// JSON report gives them, opened in a real browser (Debian's Chromium over the DevTools protocol) to
// see that it renders without an error or a CSP violation, that the filters and links work, that it
// reads with scripts off, that axe-core finds nothing serious, and that hostile values stay text.
/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromiumBinary } from './browser.js';
import { axeSource, launchBrowser, openPage, type LaunchedBrowser } from './browser-page.js';
import { podYaml, ROOT, runCli, type JsonFinding } from './helpers.js';
import { cases, manifest, run } from './hostile-values.js';
import { helmBinary } from './tools.js';
import fc from 'fast-check';
import { PNG } from 'pngjs';

const unavailable = chromiumBinary() === undefined ? 'Chromium is not installed (Debian: apt-get install chromium)' : undefined;

interface Reported extends JsonFinding {
  fingerprint: string;
}

/** The elements the report itself writes: any other in a page came from a value. */
const REPORT_ELEMENTS = new Set(
  'a article code dd details div dl dt footer form h1 h2 header input label li main mark option output p pre script section select span strong summary svg table tbody td th thead title tr ul caption desc g line rect text tspan style'.split(
    ' ',
  ),
);

let work: string;

before(() => {
  work = mkdtempSync(join(tmpdir(), 'probe-lint-html-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

/** The examples' report as HTML (a file) and JSON, from the repository root as a user runs it. */
function examplesReport(): { file: string; html: string; findings: Reported[] } {
  const file = join(work, 'examples.html');
  const run = runCli(['examples', '-f', 'json', '--report', `html=${file}`]);
  assert.equal(run.code, 1, run.stderr);
  return { file, html: readFileSync(file, 'utf8'), findings: (JSON.parse(run.stdout) as { findings: Reported[] }).findings };
}

/** The texts of every `<tag>…</tag>` of the page. */
function inlineTexts(html: string, tag: string): string[] {
  return [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((match) => match[1]!);
}

describe('the HTML report', () => {
  it('allows by hash exactly the inline style and script it holds, and nothing else: no source, no address but its own', () => {
    const { html } = examplesReport();
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
    assert.ok(policy, 'the page carries its policy');
    const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
    const styles = inlineTexts(html, 'style');
    const scripts = inlineTexts(html, 'script');
    assert.equal(styles.length, 1, 'one style element: the timelines share the page style');
    assert.equal(scripts.length, 1);
    const directives = new Map(policy.split('; ').map((directive) => [directive.split(' ')[0]!, directive.split(' ').slice(1)]));
    assert.deepEqual(directives.get('default-src'), ["'none'"]);
    assert.deepEqual(directives.get('style-src'), [sha(styles[0]!)]);
    assert.deepEqual(directives.get('script-src'), [sha(scripts[0]!)]);
    assert.doesNotMatch(html, /\s(src|srcset|action|formaction)=/i, 'nothing is loaded or sent');
    assert.doesNotMatch(html, /javascript:/i);
    for (const [, href] of html.matchAll(/href="([^"]*)"/g)) assert.ok(href!.startsWith('#') || href!.startsWith('https://'), `a link to ${href}`);
  });

  it('holds 1,000 findings with their source lines in under 2 MB, draws the first 25 timelines and says how to draw the rest', () => {
    // One finding each, of the longest message and with a fix: timeout-not-below-period.
    const pods = Array.from({ length: 1000 }, (_, index) =>
      podYaml(
        'readinessProbe: {httpGet: {path: /ready, port: 8080}}\nlivenessProbe: {httpGet: {path: /livez, port: 8080}, periodSeconds: 5, timeoutSeconds: 5}',
      ).replace('name: p\n', `name: p-${index}\n`),
    );
    writeFileSync(join(work, 'many.yaml'), pods.join('---\n'));
    const json = JSON.parse(runCli(['many.yaml', '-f', 'json'], { cwd: work }).stdout) as { findings: Reported[] };
    assert.equal(json.findings.length, 1000);
    const html = runCli(['many.yaml', '-f', 'html'], { cwd: work }).stdout;
    assert.ok(Buffer.byteLength(html) < 2 * 1024 * 1024, `${Buffer.byteLength(html)} bytes`);
    assert.equal(html.match(/<article /g)?.length, 1000);
    assert.equal(html.match(/<mark class="source-line marked"/g)?.length, 1000, 'every finding quotes its line');
    assert.equal(html.match(/<svg /g)?.length, 25);
    assert.match(html, /Timelines are drawn for the first 25 containers; 975 more are not drawn here: probe-lint timeline FILE draws any of them\./);
  });
});

describe('the HTML report in a real browser', { skip: unavailable }, () => {
  let browser: LaunchedBrowser;
  let examples: ReturnType<typeof examplesReport>;

  before(async () => {
    browser = await launchBrowser();
    examples = examplesReport();
  });
  after(async () => browser?.close());

  it("renders the examples' report with no console error, no CSP violation and no request but the page's own", async () => {
    for (const dark of [false, true]) {
      const { page, errors, violations, requests } = await openPage(browser, examples.file, { dark });
      assert.deepEqual(errors, []);
      assert.deepEqual(violations, []);
      assert.deepEqual(requests, [`file://${examples.file}`]);
      // The timelines' pictures took the page's style (their own <style> is left out).
      const fill = await page.evaluate(() => {
        const text = document.querySelector('.timeline svg text');
        return text === null ? undefined : getComputedStyle(text).fill;
      });
      assert.ok(fill !== undefined, 'a timeline is drawn');
      assert.equal(fill, dark ? 'rgb(240, 246, 252)' : 'rgb(31, 35, 40)');
      await page.close();
    }
  });

  it('gives every finding its JSON fingerprint as id, and holds its rule, its line and that line of the file, marked', async () => {
    const { page } = await openPage(browser, examples.file);
    const articles = await page.$$eval('article.finding', (elements) =>
      elements.map((element) => ({
        id: element.id,
        rule: element.getAttribute('data-rule'),
        line: Number(element.getAttribute('data-line')),
        marked: element.querySelector('.source-line.marked')?.textContent ?? null,
        markedLine: Number(element.querySelector('.source-line.marked')?.getAttribute('data-line')),
      })),
    );
    assert.deepEqual(
      articles.map((article) => article.id),
      examples.findings.map((finding) => finding.fingerprint),
    );
    for (const [index, finding] of examples.findings.entries()) {
      const article = articles[index]!;
      assert.equal(article.rule, finding.rule);
      assert.equal(article.line, finding.line);
      const lineText = readFileSync(join(ROOT, finding.file!), 'utf8').split('\n')[finding.line! - 1]!;
      assert.equal(article.markedLine, finding.line);
      assert.equal(article.marked, `${finding.line}${lineText}`, 'the marked line is the number and the line as the file holds it');
    }
    await page.close();
  });

  it("renders a chart's report, each finding quoting the template line it points at, with no console error, CSP violation or request", async () => {
    const chart = 'test/fixtures/layouts/partials/shop';
    const file = join(work, 'chart.html');
    const run = runCli([chart, '--helm', helmBinary(), '-f', 'json', '--report', `html=${file}`]);
    assert.equal(run.code, 1, run.stderr);
    const findings = (JSON.parse(run.stdout) as { findings: Reported[] }).findings;
    assert.ok(
      findings.some((finding) => finding.file!.endsWith('.tpl')),
      'findings in named templates too',
    );
    const { page, errors, violations, requests } = await openPage(browser, file);
    const marked = await page.$$eval('article.finding', (elements) =>
      elements.map((element) => element.querySelector('.source-line.marked')?.textContent ?? null),
    );
    assert.equal(marked.length, findings.length);
    for (const [index, finding] of findings.entries()) {
      const line = readFileSync(join(ROOT, finding.file!), 'utf8').split('\n')[finding.line! - 1]!;
      assert.equal(marked[index], `${finding.line}${line}`, `${finding.file}:${finding.line}`);
    }
    assert.deepEqual([errors, violations, requests], [[], [], [`file://${file}`]]);
    await page.close();
  });

  it('filters by severity, rule, namespace and text, sorts worst first, and starts from the filters in the address', async () => {
    const { page } = await openPage(browser, examples.file);
    const shown = () =>
      page.$$eval('article.finding', (elements) =>
        elements
          .filter((element) => element.checkVisibility())
          .map((element) => ({ severity: element.dataset.severity, rule: element.dataset.rule, text: element.textContent })),
      );
    assert.equal(await page.$eval('#filters', (form) => form.checkVisibility()), true, 'the script shows the filters');
    assert.equal((await shown()).length, examples.findings.length);
    const labels = await page.$$eval('#filters label', (elements) => elements.map((label) => label.firstChild?.textContent));
    assert.deepEqual(labels, ['Severity', 'Rule', 'Namespace', 'Text', 'Order']);

    await page.select('select[name=severity]', 'warning');
    const warnings = examples.findings.filter((finding) => finding.severity === 'warning');
    assert.ok(warnings.length > 0 && warnings.length < examples.findings.length);
    assert.deepEqual(
      (await shown()).map((finding) => finding.severity),
      warnings.map(() => 'warning'),
    );
    assert.equal(await page.$eval('#shown', (output) => output.textContent), `${warnings.length} of ${examples.findings.length} findings shown`);

    await page.select('select[name=severity]', '');
    const rule = examples.findings[0]!.rule;
    await page.select('select[name=rule]', rule);
    assert.equal((await shown()).length, examples.findings.filter((finding) => finding.rule === rule).length);
    await page.select('select[name=rule]', '');

    const namespace = examples.findings.find((finding) => finding.resource.namespace !== null)!.resource.namespace!;
    await page.select('select[name=namespace]', namespace);
    assert.equal((await shown()).length, examples.findings.filter((finding) => finding.resource.namespace === namespace).length);
    await page.select('select[name=namespace]', '');

    const word = examples.findings[0]!.resource.name!;
    await page.type('input[name=q]', word.toUpperCase());
    const matching = await shown();
    assert.ok(matching.length > 0 && matching.every((finding) => finding.text.includes(word)), 'text matches without regard to case');
    await page.$eval('input[name=q]', (input) => (input.value = ''));

    await page.select('select[name=sort]', 'severity');
    const order = await page.$$eval('main > section.workload', (sections) => sections.map((section) => section.dataset.worst));
    const rank = { error: 0, warning: 1, info: 2 } as Record<string, number>;
    assert.deepEqual(
      order,
      [...order].sort((a, b) => rank[a!]! - rank[b!]!),
    );
    await page.close();

    const linked = await openPage(browser, examples.file, { search: '?severity=error' });
    const errors = examples.findings.filter((finding) => finding.severity === 'error').length;
    assert.equal(await linked.page.$eval('select[name=severity]', (select) => select.value), 'error');
    assert.equal(await linked.page.$eval('#shown', (output) => output.textContent), `${errors} of ${examples.findings.length} findings shown`);
    await linked.page.close();
  });

  it('shows a finding its link names even when the filters in the address hide it', async () => {
    const info = examples.findings.find((finding) => finding.severity !== 'error')!;
    const { page } = await openPage(browser, examples.file, { search: '?severity=error', hash: `#${info.fingerprint}` });
    assert.equal(await page.$eval(`[id="${info.fingerprint}"]`, (element) => element.checkVisibility()), true);
    assert.equal(await page.$eval('select[name=severity]', (select) => select.value), '', 'the filters were cleared');
    await page.close();
  });

  it('shows every finding and no filters with scripts off', async () => {
    const { page, errors } = await openPage(browser, examples.file, { javaScript: false, search: '?severity=error' });
    assert.equal(await page.$eval('#filters', (form) => form.checkVisibility()), false);
    const visible = await page.$$eval('article.finding', (elements) => elements.filter((element) => element.checkVisibility()).length);
    assert.equal(visible, examples.findings.length);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('has no serious or critical accessibility violation (axe-core), light or dark, wide or narrow', async () => {
    const source = axeSource();
    for (const [dark, width] of [
      [false, 1200],
      [true, 420],
    ] as const) {
      const { page } = await openPage(browser, examples.file, { dark, width });
      await page.evaluate(source);
      const violations = await page.evaluate(async () => {
        const axe = (globalThis as unknown as { axe: { run: () => Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } }).axe;
        const results = await axe.run();
        return results.violations.map((violation) => ({ id: violation.id, impact: violation.impact, nodes: violation.nodes.length }));
      });
      assert.deepEqual(
        violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical'),
        [],
        `${dark ? 'dark' : 'light'} at ${width} px`,
      );
      await page.close();
    }
  });

  it('renders hostile names, annotations and file text as text: no element, handler or request appears', async () => {
    const requested: string[] = [];
    const server: Server = createServer((request, response) => {
      requested.push(request.url ?? '');
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const markup = (where: string) =>
        `"><img src=${base}/${where} onerror=alert(1)><script src=${base}/${where}.js></script><style>@import '${base}/${where}.css'</style>`;
      const manifest = `# ${markup('comment')}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${JSON.stringify(markup('name'))}
  namespace: ${JSON.stringify(markup('namespace'))}
  annotations:
    note: ${JSON.stringify(markup('annotation'))}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: ${JSON.stringify(markup('container'))}
          image: example/web:1 # ${markup('line')}
          livenessProbe: # ${markup('probe')}
            exec: {command: [${JSON.stringify(markup('command'))}]}
            periodSeconds: 5
            timeoutSeconds: 5 # \u202e${markup('bidi')}
`;
      const input = join(work, `${'<img src=x>'.replace(/[<>/]/g, '_')}.yaml`);
      writeFileSync(input, manifest);
      const file = join(work, 'hostile.html');
      const run = runCli([input, '-f', 'html'], { cwd: work });
      assert.equal(run.code, 1, run.stderr);
      writeFileSync(file, run.stdout);
      const { page, errors, violations, requests } = await openPage(browser, file);
      const dom = await page.evaluate(() => ({
        scripts: document.querySelectorAll('script').length,
        styles: document.querySelectorAll('style').length,
        loaders: document.querySelectorAll('img, iframe, object, embed, link, base, video, audio, source, meta[http-equiv=refresh]').length,
        handlers: [...document.querySelectorAll('*')].flatMap((element) => element.getAttributeNames().filter((name) => name.startsWith('on'))),
        text: document.body.textContent ?? '',
      }));
      assert.equal(dom.scripts, 1, 'only the page script');
      assert.equal(dom.styles, 1, 'only the page style');
      assert.equal(dom.loaders, 0);
      assert.deepEqual(dom.handlers, []);
      assert.ok(dom.text.includes(`<img src=${base}/container onerror=alert(1)>`), 'the container name reads as it was written');
      assert.ok(dom.text.includes(`<img src=${base}/probe onerror=alert(1)>`), 'the source line reads as it was written');
      assert.ok(dom.text.includes('\\u{202e}'), 'a bidirectional override is shown, not obeyed');
      assert.deepEqual(errors, []);
      assert.deepEqual(violations, []);
      assert.deepEqual(requests, [`file://${file}`]);
      assert.deepEqual(requested, [], 'nothing reached the server on 127.0.0.1');
      await page.close();
    } finally {
      server.close();
    }
  });

  it('renders the hostile values every format is fed as text, whatever they are: one script, one style, nothing loaded, each finding by its fingerprint', async () => {
    // The property test of every format (hostile-output.test.ts), its cases opened in the browser.
    for (const [index, value] of fc.sample(cases, { numRuns: 25, seed: 20261207 }).entries()) {
      const input = manifest(value);
      const html = await run(['-', '--format', 'html', '--fail-on', 'never'], input);
      assert.equal(html.code, 0, html.stderr);
      const json = JSON.parse((await run(['-', '--format', 'json', '--fail-on', 'never'], input)).stdout) as { findings: Reported[] };
      const file = join(work, `hostile-${index}.html`);
      writeFileSync(file, html.stdout);
      const { page, errors, violations, requests } = await openPage(browser, file);
      const dom = await page.evaluate(() => ({
        scripts: document.querySelectorAll('script').length,
        styles: document.querySelectorAll('style').length,
        elements: [...new Set([...document.querySelectorAll('body *')].map((element) => element.localName))].sort(),
        handlers: [...document.querySelectorAll('*')].flatMap((element) => element.getAttributeNames().filter((name) => name.startsWith('on'))),
        ids: [...document.querySelectorAll('article.finding')].map((element) => element.id),
      }));
      const context = JSON.stringify(value);
      assert.equal(dom.scripts, 1, context);
      assert.equal(dom.styles, 1, context);
      assert.deepEqual(dom.handlers, [], context);
      for (const name of dom.elements) assert.ok(REPORT_ELEMENTS.has(name), `<${name}> in the page for ${context}`);
      assert.deepEqual(
        dom.ids,
        json.findings.map((finding) => finding.fingerprint),
        context,
      );
      assert.deepEqual(errors, [], context);
      assert.deepEqual(violations, [], context);
      assert.deepEqual(requests, [`file://${file}`], context);
      await page.close();
    }
  });

  it('looks as its golden pictures do, wide and light (the one docs/cli.md shows) and narrow and dark, within a tolerance', async () => {
    // The page as a reviewer sees it: fixed time, the examples. A changed look shows as a changed picture
    // in the diff (UPDATE_SNAPSHOTS=1 rewrites them); fonts that differ by a little stay within the tolerance.
    const file = join(work, 'pictured.html');
    const run = runCli(['examples', '-f', 'html'], { env: { SOURCE_DATE_EPOCH: '1796083200' } });
    writeFileSync(file, run.stdout);
    for (const { golden, width, dark } of [
      { golden: join(ROOT, 'docs/html-report.png'), width: 1200, dark: false },
      { golden: join(ROOT, 'test/golden/html-report-narrow-dark.png'), width: 420, dark: true },
    ]) {
      const { page } = await openPage(browser, file, { width, dark });
      const shot = Buffer.from(await page.screenshot({ type: 'png' }));
      await page.close();
      if (process.env.UPDATE_SNAPSHOTS === '1' || !existsSync(golden)) {
        if (process.env.CI === 'true' && !existsSync(golden)) assert.fail(`${golden} is missing: run UPDATE_SNAPSHOTS=1 npm test and review it`);
        writeFileSync(golden, shot);
        continue;
      }
      const [actual, expected] = [PNG.sync.read(shot), PNG.sync.read(readFileSync(golden))];
      assert.deepEqual([actual.width, actual.height], [expected.width, expected.height]);
      let differing = 0;
      for (let index = 0; index < actual.data.length; index += 4) {
        const channels = [0, 1, 2].map((channel) => Math.abs(actual.data[index + channel]! - expected.data[index + channel]!));
        if (Math.max(...channels) > 64) differing++;
      }
      const share = differing / (actual.width * actual.height);
      assert.ok(
        share < 0.02,
        `${(share * 100).toFixed(2)} % of the pixels differ from ${golden}: review the change, and run UPDATE_SNAPSHOTS=1 npm test to accept it`,
      );
    }
  });
});
