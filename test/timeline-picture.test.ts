// The timeline as people see it: the SVG and the markdown (converted by `marked`, its Mermaid chart
// drawn by Mermaid, as GitHub does) rendered by headless Chromium, and checked for what they show —
// every window's bar where its written numbers put it on the axis Chromium drew, in light and dark.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { Marked } from 'marked';
import { chromiumBinary, renderedDom, screenshot, type Picture } from './browser.js';
import { launchBrowser, openPage } from './browser-page.js';
import { podYaml, ROOT, runCli } from './helpers.js';

const EXAMPLE = join(ROOT, 'examples/payments.yaml');
const MERMAID = join(ROOT, 'tools/node_modules/mermaid/dist/mermaid.min.js');
const unavailable = chromiumBinary() === undefined ? 'Chromium is not installed (Debian: apt-get install chromium)' : undefined;
if (unavailable !== undefined && process.env.CI !== undefined) throw new Error(`the browser tests cannot run: ${unavailable}`);

interface Bar {
  x: number;
  y: number;
  width: number;
  height: number;
  from: number;
  to: number;
}

/** The bars of the SVG with the numbers written beside each ("20-30 s"), and the axis ticks of each block. */
function barsOf(svg: string): { bars: Bar[]; ticks: { seconds: number; x: number; bottom: number }[] } {
  const bars = [
    ...svg.matchAll(
      /<rect class="[a-z-]+ [a-z-]+" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"[^>]*>.*?<\/rect>\n<text class="window"[^>]*>([\d.]+)-([\d.]+) s<\/text>/g,
    ),
  ].map((match) => {
    const [x, y, width, height, from, to] = match.slice(1).map(Number) as [number, number, number, number, number, number];
    return { x, y, width, height, from, to };
  });
  const ticks = [...svg.matchAll(/<line class="grid" x1="([\d.]+)" y1="[\d.]+" x2="[\d.]+" y2="([\d.]+)"\/>\n<text class="tick"[^>]*>(\d+) s<\/text>/g)].map(
    (match) => ({
      x: Number(match[1]),
      bottom: Number(match[2]),
      seconds: Number(match[3]),
    }),
  );
  return { bars, ticks };
}

const distance = (a: [number, number, number], b: [number, number, number]) => Math.max(...a.map((value, index) => Math.abs(value - b[index]!)));

/** The columns, on row y, of the grid lines Chromium drew: runs of pixels unlike the background. */
function gridColumns(picture: Picture, y: number, fromX: number, toX: number): number[] {
  const background = picture.at(fromX, y);
  const columns: number[] = [];
  let run: number[] = [];
  for (let x = fromX; x <= toX; x++) {
    if (distance(picture.at(x, y), background) > 12) run.push(x);
    else if (run.length > 0) {
      columns.push(run.reduce((sum, value) => sum + value, 0) / run.length);
      run = [];
    }
  }
  return columns;
}

/** The extent, on row y, of the bar whose middle is at x: pixels of the middle's colour either side. */
function barExtent(picture: Picture, x: number, y: number): [number, number] {
  const colour = picture.at(x, y);
  let left = x;
  while (left > 0 && distance(picture.at(left - 1, y), colour) < 40) left--;
  let right = x;
  while (right < picture.width - 1 && distance(picture.at(right + 1, y), colour) < 40) right++;
  return [left, right + 1];
}

describe('the timeline in a real browser', { skip: unavailable }, () => {
  const directory = mkdtempSync(join(tmpdir(), 'probe-lint-picture-'));

  it('draws every window where its numbers put it on the axis, in light and dark themes', () => {
    const run = runCli(['timeline', EXAMPLE, '--format', 'svg']);
    assert.equal(run.code, 0, run.stderr);
    const svg = run.stdout;
    const file = join(directory, 'timeline.svg');
    writeFileSync(file, svg);
    const [width, height] = [Number(/width="(\d+)"/.exec(svg)![1]), Number(/height="(\d+)"/.exec(svg)![1])];
    const { bars, ticks } = barsOf(svg);
    assert.ok(bars.length >= 7, `the example draws its windows (${bars.length} bars)`);
    for (const dark of [false, true]) {
      const picture = screenshot(file, { width, height }, dark);
      const [r, g, b] = picture.at(4, 4);
      const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
      assert.ok(dark ? luminance < 40 : luminance > 230, `the ${dark ? 'dark' : 'light'} background (${r},${g},${b})`);
      for (const bar of bars) {
        // This bar's block: its ticks are the first ones drawn below it.
        const bottom = ticks.find((tick) => tick.bottom > bar.y)!.bottom;
        const axis = ticks.filter((tick) => tick.bottom === bottom);
        const columns = gridColumns(picture, bottom - 2, Math.floor(axis[0]!.x) - 8, Math.ceil(axis.at(-1)!.x) + 8);
        assert.equal(columns.length, axis.length, `the ${dark ? 'dark' : 'light'} picture shows one grid line per tick (${columns.join(', ')})`);
        const [zero, last] = [columns[0]!, columns.at(-1)!];
        const pixelsPerSecond = (last - zero) / (axis.at(-1)!.seconds - axis[0]!.seconds);
        const [left, right] = barExtent(picture, bar.x + bar.width / 2, bar.y + bar.height / 2);
        const where = `the ${bar.from}-${bar.to} s bar (${dark ? 'dark' : 'light'})`;
        assert.ok(
          Math.abs(left - (zero + bar.from * pixelsPerSecond)) <= 1.5,
          `${where} starts at ${left}, where ${bar.from} s is (${zero + bar.from * pixelsPerSecond})`,
        );
        if (bar.to - bar.from > 0) {
          assert.ok(
            Math.abs(right - (zero + bar.to * pixelsPerSecond)) <= 1.5,
            `${where} ends at ${right}, where ${bar.to} s is (${zero + bar.to * pixelsPerSecond})`,
          );
        }
      }
    }
  });

  it("renders the markdown's table and Mermaid chart, each task where its numbers put it", () => {
    const run = runCli(['timeline', EXAMPLE, '--container', 'payments', '--format', 'markdown']);
    assert.equal(run.code, 0, run.stderr);
    // GitHub turns a mermaid code block into a diagram; here Mermaid itself does it in the page.
    const marked = new Marked({
      renderer: {
        code: ({ text, lang }) => (lang === 'mermaid' ? `<pre class="mermaid">${text.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</pre>` : false),
      },
    });
    const page = join(directory, 'timeline.html');
    writeFileSync(
      page,
      `<!doctype html><html><head><meta charset="utf-8"><script src="${pathToFileURL(MERMAID).href}"></script></head><body>${marked.parse(run.stdout) as string}` +
        `<script>mermaid.initialize({ startOnLoad: false }); mermaid.run().then(() => document.body.dataset.rendered = 'yes', (error) => document.body.dataset.rendered = String(error));</script></body></html>`,
    );
    const dom = renderedDom(page);
    assert.match(dom, /data-rendered="yes"/, 'Mermaid drew the chart without an error');
    const rows = [...dom.matchAll(/<tr>\s*<td><code>(\w+)<\/code><\/td>\s*<td>([^<]+)<\/td>\s*<td[^>]*>([\d.]+)-([\d.]+) s<\/td>/g)];
    assert.equal(rows.length, 7, 'the table lists the seven windows of the container');
    const tasks = [...dom.matchAll(/<rect id="[^"]*-w(\d+)"[^>]* x="([\d.]+)" y="[\d.]+" width="([\d.]+)"[^>]*class="task[^"]*"/g)].map((match) => ({
      id: Number(match[1]),
      x: Number(match[2]),
      width: Number(match[3]),
    }));
    const labels = new Map<number, [number, number]>(
      [...dom.matchAll(/<text id="[^"]*-w(\d+)-text"[^>]*>[^<]*? ([\d.]+)-([\d.]+) s/g)].map((match) => [
        Number(match[1]),
        [Number(match[2]), Number(match[3])],
      ]),
    );
    assert.equal(tasks.length, rows.length, 'one task per window');
    // Mermaid rounds to whole pixels: the scale comes from the two tasks furthest apart.
    const byStart = [...tasks].sort((a, b) => a.x - b.x);
    const [first, last] = [byStart[0]!, byStart.at(-1)!];
    const [firstFrom] = labels.get(first.id)!;
    const pixelsPerSecond = (last.x - first.x) / (labels.get(last.id)![0] - firstFrom);
    for (const task of tasks) {
      const [from, to] = labels.get(task.id)!;
      assert.ok(Math.abs(task.x - (first.x + (from - firstFrom) * pixelsPerSecond)) <= 1.5, `task ${from}-${to} s starts at ${task.x}, where ${from} s is`);
      assert.ok(Math.abs(task.width - (to - from) * pixelsPerSecond) <= 1.5, `task ${from}-${to} s is ${to - from} s wide`);
    }
  });
});

describe('the timeline picture', () => {
  it('keeps its text as text, with a title and a description that say the same', () => {
    const svg = runCli(['timeline', EXAMPLE, '--format', 'svg']).stdout;
    assert.doesNotMatch(svg, /<path/);
    assert.match(svg, /<title id="probe-lint-title">/);
    const description = /<desc id="probe-lint-desc">([^<]*)<\/desc>/.exec(svg)![1]!;
    for (const match of svg.matchAll(/<text class="window"[^>]*>([^<]+)<\/text>/g))
      assert.ok(description.includes(match[1]!), `the description says ${match[1]}`);
  });

  it('cannot be broken by what a manifest names: no markup from a name reaches the SVG or the Mermaid chart', () => {
    const hostile =
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: "x</text><script>alert(1)</script>"\nspec:\n  containers:\n    - name: "a:b;c#d\\n  section evil"\n      image: x\n      livenessProbe: {tcpSocket: {port: 80}}\n';
    const svg = runCli(['timeline', '-', '--format', 'svg'], { input: hostile }).stdout;
    assert.doesNotMatch(svg, /<script/);
    assert.match(svg, /x&lt;\/text&gt;&lt;script&gt;/);
    const markdown = runCli(['timeline', '-', '--format', 'markdown'], { input: hostile }).stdout;
    const chart = /```mermaid\n([\s\S]*?)```/.exec(markdown)![1]!;
    assert.equal(chart.match(/^ {2}section /gm)!.length, 1, 'one section: a name cannot start another');
    assert.doesNotMatch(
      chart.split('\n').find((line) => line.startsWith('  title'))!,
      /[:;#<]/,
    );
  });

  it('keeps every text inside the picture and clear of every other, wrapping long notes and shortening long names with the whole as a tooltip', async () => {
    // The project's own example (its notes ran past the right edge), and names at the API's limits in a deep path.
    const directory = mkdtempSync(join(tmpdir(), 'probe-lint-fitted-'));
    const deep = join(directory, 'a-rather-long-directory-name-for-manifests', 'another-level-of-directories-below-it', 'and-one-more');
    mkdirSync(deep, { recursive: true });
    const long = join(deep, 'a-manifest-file-with-a-long-name-of-its-own.yaml');
    writeFileSync(
      long,
      podYaml(
        'livenessProbe: {httpGet: {path: /livez, port: 8080}}\nreadinessProbe: {httpGet: {path: /ready, port: 8080}, terminationGracePeriodSeconds: 5}\nstartupProbe: {httpGet: {path: /livez, port: 8080}}',
      )
        .replace('name: p\n', `name: ${'n'.repeat(253)}\n  namespace: ${'s'.repeat(63)}\n`)
        .replace('- name: c\n', `- name: ${'c'.repeat(63)}\n`),
    );
    const browser = await launchBrowser();
    try {
      for (const input of [join(ROOT, 'examples/shop.yaml'), long]) {
        const run = runCli(['timeline', input, '--format', 'svg']);
        assert.equal(run.code, 0, run.stderr);
        const file = join(directory, 'fitted.svg');
        writeFileSync(file, run.stdout);
        const { page } = await openPage(browser, file);
        const { width, boxes } = await page.evaluate(() => ({
          width: document.querySelector('svg')!.viewBox.baseVal.width,
          boxes: [...document.querySelectorAll('text')].map((text) => {
            const box = text.getBBox();
            return {
              text: text.textContent ?? '',
              left: box.x,
              right: box.x + box.width,
              top: box.y,
              bottom: box.y + box.height,
              tooltip: text.querySelector('title')?.textContent,
            };
          }),
        }));
        await page.close();
        for (const box of boxes) assert.ok(box.left >= 0 && box.right <= width, `"${box.text}" spans ${box.left}-${box.right} of ${width} px`);
        for (const [index, a] of boxes.entries())
          for (const b of boxes.slice(index + 1)) {
            const overlap = Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
            assert.ok(!overlap, `"${a.text}" and "${b.text}" overlap`);
          }
        if (input === long) {
          const title = boxes.find((box) => box.tooltip?.startsWith(`Pod/${'s'.repeat(63)}/`));
          assert.ok(title, 'the heading is shortened, its whole text its tooltip');
          assert.ok(title.tooltip!.endsWith(`container "${'c'.repeat(63)}"`));
          const path = boxes.find((box) => box.tooltip?.endsWith('a-manifest-file-with-a-long-name-of-its-own.yaml') && box.text.startsWith('…'));
          assert.ok(path, 'the file is shortened from its start, its end kept');
        }
      }
    } finally {
      await browser.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('is the picture the README shows (docs/timeline.svg, written by npm run generate)', () => {
    const svg = runCli(['timeline', 'examples/payments.yaml', '--format', 'svg'], { cwd: ROOT }).stdout;
    assert.equal(readFileSync(join(ROOT, 'docs/timeline.svg'), 'utf8'), svg);
  });
});
