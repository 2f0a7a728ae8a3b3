// The HTML report's own style and script, and the Content-Security-Policy that allows exactly them:
// `default-src 'none'`, each inline <style> and <script> by its SHA-256, nothing fetched. Both are
// constants, so the hashes are computed once; every value from a manifest or a cluster is text the
// encoder wrote, never style or script.
import { createHash } from 'node:crypto';

export const PAGE_STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --panel: #f6f8fa;
  --error: #cf222e; --warning: #9a6700; --info: #0969da; --mark: #fff8c5; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #f0f6fc; --muted: #9198a1; --line: #3d444d; --panel: #151b23;
    --error: #ff7b72; --warning: #d29922; --info: #58a6ff; --mark: #3b2e00; }
}
body { background: var(--bg); color: var(--fg); font: 14px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0 auto; max-width: 1100px; padding: 16px 24px 48px; }
a { color: var(--info); }
h1 { font-size: 24px; margin: 8px 0; }
h2 { font-size: 17px; margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 8px 0 16px; }
caption { text-align: left; padding-bottom: 4px; }
th, td { border: 1px solid var(--line); padding: 3px 10px; text-align: left; }
td.count { text-align: right; font-variant-numeric: tabular-nums; }
code, pre, .place { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
.muted, .where, .rendered { color: var(--muted); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0 16px; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.filters { display: flex; flex-wrap: wrap; gap: 12px; align-items: end; padding: 10px 12px; margin: 16px 0; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; position: sticky; top: 0; }
.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
.filters select, .filters input { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: 2px 6px; }
.workload { border: 1px solid var(--line); border-radius: 6px; margin: 16px 0; padding: 12px 16px; }
.finding { border-top: 1px solid var(--line); margin-top: 10px; padding-top: 10px; }
.finding header { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: baseline; }
.severity { font-weight: 600; text-transform: uppercase; font-size: 11px; letter-spacing: 0.04em; }
[data-severity=error] .severity { color: var(--error); }
[data-severity=warning] .severity { color: var(--warning); }
[data-severity=info] .severity { color: var(--info); }
.message { margin: 6px 0; overflow-wrap: anywhere; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 4px; padding: 6px 0; overflow-x: auto; margin: 6px 0; }
pre.source { padding: 6px 10px; }
pre mark.source-line { display: inline-block; min-width: 100%; background: var(--mark); color: inherit; }
pre .number { display: inline-block; min-width: 4ch; color: var(--muted); text-align: right; margin-right: 12px; user-select: none; }
pre.patch, pre.evidence { padding: 6px 10px; white-space: pre-wrap; overflow-wrap: anywhere; }
details > summary { cursor: pointer; color: var(--muted); }
.timeline svg { max-width: 100%; height: auto; }
[hidden] { display: none !important; }
@media print {
  .filters { display: none !important; }
  body { max-width: none; }
  .workload { break-inside: avoid; }
}
`;

// Filters (severity, rule, namespace, text) and the order of workloads; the initial state may come from
// the address (?severity=error&rule=…&namespace=…&q=…&sort=severity) so a filtered view can be linked.
// With scripts off the form stays hidden and everything is shown.
export const PAGE_SCRIPT = `
(() => {
  const form = document.getElementById('filters');
  const main = document.getElementById('workloads');
  const status = document.getElementById('shown');
  if (!form || !main || !status) return;
  const fields = ['severity', 'rule', 'namespace', 'q', 'sort'];
  const params = new URLSearchParams(location.search);
  for (const name of fields) {
    const value = params.get(name);
    const control = form.elements.namedItem(name);
    if (value !== null && control) control.value = value;
  }
  const findings = Array.from(main.querySelectorAll('.finding'));
  const workloads = Array.from(main.querySelectorAll('.workload'));
  const original = workloads.slice();
  const rank = { error: 0, warning: 1, info: 2 };
  const value = (name) => form.elements.namedItem(name).value;
  function apply() {
    const severity = value('severity'), rule = value('rule'), namespace = value('namespace');
    const text = value('q').trim().toLowerCase();
    let shown = 0;
    for (const finding of findings) {
      const match = (!severity || finding.dataset.severity === severity) && (!rule || finding.dataset.rule === rule) &&
        (!namespace || finding.dataset.namespace === namespace) && (!text || finding.textContent.toLowerCase().includes(text));
      finding.hidden = !match;
      if (match) shown++;
    }
    for (const workload of workloads) workload.hidden = workload.querySelector('.finding:not([hidden])') === null;
    const sort = value('sort');
    const ordered = original.slice();
    if (sort === 'severity') ordered.sort((a, b) => rank[a.dataset.worst] - rank[b.dataset.worst] || original.indexOf(a) - original.indexOf(b));
    if (sort === 'name') ordered.sort((a, b) => (a.dataset.name < b.dataset.name ? -1 : a.dataset.name > b.dataset.name ? 1 : 0));
    for (const workload of ordered) main.appendChild(workload);
    status.textContent = shown + ' of ' + findings.length + ' findings shown';
  }
  // A link to a finding the filters hide shows it: the filters are cleared first.
  function reveal() {
    const id = decodeURIComponent(location.hash.slice(1));
    const target = id ? document.getElementById(id) : null;
    if (target && target.closest('[hidden]')) {
      for (const name of ['severity', 'rule', 'namespace', 'q']) form.elements.namedItem(name).value = '';
      apply();
      target.scrollIntoView();
    }
  }
  form.addEventListener('input', apply);
  form.addEventListener('submit', (event) => event.preventDefault());
  window.addEventListener('hashchange', reveal);
  form.hidden = false;
  apply();
  reveal();
})();
`;

/** The CSP source of an inline element's exact text. */
export function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** The policy for a page whose only style and script are the given inline texts. */
export function contentSecurityPolicy(styles: readonly string[], scripts: readonly string[]): string {
  return [
    "default-src 'none'",
    `style-src ${[...new Set(styles)].map(cspHash).join(' ')}`,
    `script-src ${[...new Set(scripts)].map(cspHash).join(' ')}`,
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}
