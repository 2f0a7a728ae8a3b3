// Which template lines a rendering's values rule out, and the values helm gave the rendering.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { renderedValues, subchartValues } from '../src/source/origin/chart-values.js';
import { FileCache } from '../src/source/read/file-cache.js';
import { deadLines } from '../src/source/origin/template-branches.js';

/** The template's lines that are ruled out, by their text (each line of these templates is unique). */
function ruledOut(template: string, values: unknown): string[] {
  const lines = template.split('\n');
  return [...deadLines(template, values)].sort((a, b) => a - b).map((index) => lines[index]!.trim());
}

const LADDER = `{{- if .Values.custom }}
custom: 1
{{- else if .Values.probe.enabled }}
enabled: 1
{{- else }}
neither: 1
{{- end }}
after: 1`;

describe('template branches the values rule out', () => {
  it('if / else if / else: only the branch taken renders; what follows end renders again', () => {
    // A line counts by the state it starts in: an action's own line, by the branch before it.
    assert.deepEqual(ruledOut(LADDER, { custom: {}, probe: { enabled: true } }), [
      'custom: 1',
      '{{- else if .Values.probe.enabled }}',
      'neither: 1',
      '{{- end }}',
    ]);
    assert.deepEqual(ruledOut(LADDER, { custom: { a: 1 }, probe: { enabled: true } }), ['enabled: 1', '{{- else }}', 'neither: 1', '{{- end }}']);
    assert.deepEqual(ruledOut(LADDER, { custom: '', probe: { enabled: false } }), [
      'custom: 1',
      '{{- else if .Values.probe.enabled }}',
      'enabled: 1',
      '{{- else }}',
    ]);
    assert.deepEqual(ruledOut(LADDER, {}), ['custom: 1', '{{- else if .Values.probe.enabled }}', 'enabled: 1', '{{- else }}'], 'a missing key is nil');
  });

  it("Go's truth: false, 0, nil, empty strings, maps and lists are false; anything else is true", () => {
    const template = '{{ if .Values.x }}\nyes\n{{ end }}';
    for (const falsy of [false, 0, null, '', {}, []]) assert.deepEqual(ruledOut(template, { x: falsy }), ['yes', '{{ end }}'], JSON.stringify(falsy));
    for (const truthy of [true, 1, -1, 'no', 'false', { a: null }, [0]]) assert.deepEqual(ruledOut(template, { x: truthy }), [], JSON.stringify(truthy));
  });

  it('not, and, or, eq and ne are evaluated when every operand that decides is known', () => {
    const branch = (condition: string, values: unknown) => ruledOut(`{{- if ${condition} }}\nin\n{{- end }}`, values).includes('in');
    assert.equal(branch('not .Values.a', { a: true }), true);
    assert.equal(branch('not .Values.a', { a: false }), false);
    assert.equal(branch('and .Values.a .Values.b', { a: true, b: 0 }), true);
    assert.equal(branch('and .Values.a .Values.b', { a: true, b: 1 }), false);
    assert.equal(branch('or .Values.a .Values.b', { a: false, b: '' }), true);
    assert.equal(branch('or .Values.a (include "x" .)', { a: true }), false, 'or is decided by a known true');
    assert.equal(branch('and .Values.a (include "x" .)', { a: false }), true, 'and is decided by a known false');
    assert.equal(branch('and .Values.a (include "x" .)', { a: true }), false, 'undecided: possible');
    assert.equal(branch('eq .Values.kind "StatefulSet"', { kind: 'Deployment' }), true);
    assert.equal(branch('eq .Values.kind "StatefulSet" "Deployment"', { kind: 'Deployment' }), false);
    assert.equal(branch('ne .Values.replicas 1', { replicas: 1 }), true);
    assert.equal(branch('(not .Values.a)', { a: true }), true);
    assert.equal(branch('eq .Values.map "x"', { map: { a: 1 } }), false, 'a map compared: not known');
  });

  it('functions, pipes, variables and a changed dot leave both branches possible', () => {
    for (const condition of [
      'include "x" .',
      '.Values.a | default true',
      '$x',
      '$x := .Values.a',
      'hasKey .Values "a"',
      '.Release.Name',
      '.Values.a.b.c | not',
    ]) {
      assert.deepEqual(ruledOut(`{{- if ${condition} }}\nin\n{{- else }}\nout\n{{- end }}`, { a: false }), [], condition);
    }
    const inWith = '{{- with .Values.sub }}\n{{- if .Values.a }}\nrelative\n{{- end }}\n{{- if $.Values.a }}\nfromRoot\n{{- end }}\n{{- end }}';
    assert.deepEqual(ruledOut(inWith, { sub: { x: 1 }, a: false }), ['fromRoot', '{{- end }}'], 'inside with, . is the sub value; $ is still the root');
    assert.deepEqual(ruledOut('{{- with .Values.sub }}\nbody\n{{- else }}\nnone\n{{- end }}', { sub: {} }), ['body', '{{- else }}']);
    assert.deepEqual(ruledOut('{{- range .Values.list }}\nitem\n{{- end }}', { list: [] }), ['item', '{{- end }}']);
    assert.deepEqual(ruledOut('{{- range $i, $v := .Values.list }}\nitem\n{{- end }}', { list: [] }), [], 'a range with variables: not evaluated');
    assert.deepEqual(ruledOut('{{- define "x" }}\n{{- if .Values.a }}\nnamed\n{{- end }}\n{{- end }}', { a: false }), [], "a define's dot is its caller's");
  });

  it('reads actions across lines and past string literals holding braces; an unclosed action ends the reading', () => {
    assert.deepEqual(ruledOut('{{- if and\n    .Values.a\n    .Values.b }}\ninside\n{{- end }}', { a: true, b: false }), ['inside', '{{- end }}']);
    assert.deepEqual(ruledOut('{{ printf "}}" }}\n{{- if .Values.a }}\nin\n{{- end }}', { a: false }), ['in', '{{- end }}']);
    assert.deepEqual(ruledOut('{{- if .Values.a }}\nin\n{{ oops', { a: false }), ['in', '{{ oops']);
    assert.deepEqual(ruledOut('{{- /* if .Values.a */}}\nshown\n{{- end }}', { a: false }), [], 'a comment is no action');
  });
});

describe('the values of a rendering', () => {
  const chart = mkdtempSync(join(tmpdir(), 'probe-lint-values-'));
  writeFileSync(join(chart, 'values.yaml'), 'probe:\n  enabled: yes\n  period: 10\nkeep: {a: 1, b: 2}\nglobal: {registry: docker.io}\n');
  const ci = join(chart, 'ci.yaml');
  writeFileSync(ci, 'probe:\n  enabled: off\nkeep: {b: null, c: 3}\n');

  it('helm reads scalars as YAML 1.1 (yes is true, off is false), merges maps key by key, and null removes a key', () => {
    assert.deepEqual(renderedValues(chart, [], new FileCache()), {
      probe: { enabled: true, period: 10 },
      keep: { a: 1, b: 2 },
      global: { registry: 'docker.io' },
    });
    assert.deepEqual(renderedValues(chart, [ci], new FileCache()), {
      probe: { enabled: false, period: 10 },
      keep: { a: 1, c: 3 },
      global: { registry: 'docker.io' },
    });
  });

  it('is not known when a values file does not read as a mapping; a chart without values.yaml has none', () => {
    const list = join(chart, 'list.yaml');
    writeFileSync(list, '- a\n');
    assert.equal(renderedValues(chart, [list], new FileCache()), undefined);
    assert.equal(renderedValues(chart, [join(chart, 'absent.yaml')], new FileCache()), undefined);
    assert.deepEqual(renderedValues(join(chart, 'none'), [], new FileCache()), {});
  });

  it("a subchart's: its own defaults under what the parent gives it, with the parent's globals", () => {
    const parent = renderedValues(chart, [], new FileCache())!;
    const sub = mkdtempSync(join(tmpdir(), 'probe-lint-subvalues-'));
    writeFileSync(join(sub, 'values.yaml'), 'probe: {enabled: true}\nglobal: {registry: quay.io, pullPolicy: Always}\n');
    assert.deepEqual(subchartValues(sub, { probe: { enabled: false } }, parent.global, new FileCache()), {
      probe: { enabled: false },
      global: { registry: 'docker.io', pullPolicy: 'Always' },
    });
    assert.equal(subchartValues(sub, 'not a map', parent.global, new FileCache()), undefined);
  });
});
