// The documentation a newcomer reads: a README that fits on a few screens, and every relative link
// and anchor of the README, CONTRIBUTING, docs/ and the rules' pages leading somewhere.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from './helpers.js';
import { REPORT_FORMATS } from '../src/report/format-names.js';

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as dashes, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (heading === null) continue;
    const base = heading[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const seen = counts.get(base) ?? 0;
    counts.set(base, seen + 1);
    anchors.add(seen === 0 ? base : `${base}-${seen}`);
  }
  return anchors;
}

/** The links of a page outside code: [text](target). */
function linksOf(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
}

const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  ...readdirSync(join(ROOT, 'rules'))
    .filter((name) => existsSync(join(ROOT, 'rules', name, 'README.md')))
    .map((name) => `rules/${name}/README.md`),
];

describe('the documentation', () => {
  it("names every output format in the README's list and in the security model's encoder row", () => {
    // Checked against the descriptors, so a new format cannot be left out of the pages a newcomer reads first.
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const formats = /\w+ output formats \(([^;]+)\);/.exec(readme.replace(/\n/g, ' '))?.[1] ?? '';
    for (const format of REPORT_FORMATS) assert.match(formats, new RegExp(`\\b${format}\\b`), `the README's list of formats names ${format}`);
    const security = readFileSync(join(ROOT, 'docs/security.md'), 'utf8');
    const encoders = security.split('\n').find((line) => line.startsWith('| output formats |')) ?? '';
    for (const encoder of ['XML', 'Markdown', 'HTML', 'SARIF', 'JSON', 'GitLab'])
      assert.ok(encoders.includes(encoder), `docs/security.md's output formats row says how ${encoder} is encoded`);
  });

  it('keeps the README short: at most 30,000 bytes, the rest in docs/', () => {
    const size = statSync(join(ROOT, 'README.md')).size;
    assert.ok(size <= 30_000, `README.md is ${size} bytes`);
    for (const page of ['cli', 'rules', 'configuration', 'helm-chart', 'ci', 'security', 'timeline', 'testing', 'performance'])
      assert.match(readFileSync(join(ROOT, 'README.md'), 'utf8'), new RegExp(`\\]\\(docs/${page}\\.md\\)`), `the README links docs/${page}.md`);
  });

  it('has every relative link and anchor resolve, in the README, CONTRIBUTING, docs/ and the rules’ pages', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of PAGES) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const link of linksOf(text)) {
        if (/^[a-z][a-z+.-]*:/i.test(link)) continue; // https:, mailto:
        checked++;
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), decodeURI(path));
        if (!target.startsWith(`${ROOT}/`) || !existsSync(target)) {
          broken.push(`${page}: ${link} (no ${relative(ROOT, target)})`);
          continue;
        }
        if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor))
          broken.push(`${page}: ${link} (no such heading)`);
      }
    }
    assert.ok(checked > 50, `${checked} links checked`);
    assert.deepEqual(broken, []);
  });
});
