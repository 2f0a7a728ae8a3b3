// `npm run new-rule -- ID`: a rule's folder to fill in (as Ruff's add_rule.py makes one): index.ts with
// metadata, a message and a check, README.md with the sections the docs tests run, a failing and a
// passing fixture, and the rule's line in rules/registry.ts. The tests then say what is left to do.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The files of a new rule, and the registry with its line, relative to the repository's root. */
export function newRuleFiles(id: string, registry: string): Record<string, string> {
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)+$/.test(id)) throw new Error(`"${id}" is not a rule id: lower-case words joined by dashes, e.g. probe-period-too-long`);
  const name = id.replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
  const lines = registry.trimEnd().split('\n');
  const exportLine = `export { default as ${name} } from './${id}/index.js';`;
  if (lines.includes(exportLine)) throw new Error(`${id} is in rules/registry.ts already`);
  const exports = lines.filter((line) => line.startsWith('export '));
  const others = lines.filter((line) => !line.startsWith('export '));
  return {
    'rules/registry.ts': `${[...others, ...[...exports, exportLine].sort()].join('\n')}\n`,
    [`rules/${id}/index.ts`]: `import { defineRule, PROBED_CONTAINERS } from '../../src/rule-api.js';

export default defineRule({
  meta: {
    id: '${id}',
    severity: 'warning',
    summary: 'TODO: one line, what the rule flags',
    remediation: 'TODO: how to resolve a finding, in a sentence or two.',
    scope: PROBED_CONTAINERS,
    policy: {
      // TODO: the rule as CEL (over, problems: (message) => CEL for a list of message('found', {...})), or why it cannot be.
      notExpressible: 'TODO: why the admission policies cannot express this rule, in a sentence the README table shows.',
    },
    messages: {
      found: {
        short: '{field} TODO: what is wrong, the numbers, what to do (about 120 characters)',
        long: '{field} TODO: the same with why it matters, from the timing model where the kubelet acts.',
      },
    },
  },
  checkContainer({ probes, report }) {
    for (const probe of probes) {
      // TODO: the condition (the fixtures fail until it is written).
      if (probe.numbersValid) continue;
      report({ messageId: 'found', data: { field: probe.field }, pointer: probe.pointer });
    }
  },
});
`,
    [`rules/${id}/README.md`]: `# ${id}

**Severity:** warning · **Fix:** none

TODO: what it flags, in a sentence.

## Why

TODO: why it matters — what the kubelet or the API server does, with sources (the Kubernetes
source file and line).

## Failing

\`\`\`yaml
containers:
  - name: app
    image: app:1
    livenessProbe: {tcpSocket: {port: 8080}}
\`\`\`

## Passing

\`\`\`yaml
containers:
  - name: app
    image: app:1
    livenessProbe: {tcpSocket: {port: 8080}}
\`\`\`

## How to fix

TODO.
`,
    [`rules/${id}/fixtures/fail/basic.yaml`]: `apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  containers:
    - name: app
      image: app:1
      livenessProbe: # expect: ${id}/found warning "TODO"
        tcpSocket: {port: 8080}
`,
    [`rules/${id}/fixtures/pass/basic.yaml`]: `apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  containers:
    - name: app
      image: app:1
      livenessProbe:
        tcpSocket: {port: 8080}
`,
  };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const id = process.argv[2];
  const root = resolve(process.env.PROBE_LINT_ROOT ?? join(import.meta.dirname, '../..'));
  if (id === undefined) {
    process.stderr.write('usage: npm run new-rule -- RULE-ID\n');
    process.exit(2);
  }
  if (existsSync(join(root, 'rules', id))) {
    process.stderr.write(`new-rule: rules/${id} exists already\n`);
    process.exit(2);
  }
  const files = newRuleFiles(id, readFileSync(join(root, 'rules/registry.ts'), 'utf8'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
    process.stdout.write(`wrote ${path}\n`);
  }
  process.stdout.write(`\nNext: fill in the TODOs, then npm run generate && UPDATE_SNAPSHOTS=1 npm test; the tests name what is missing.\n`);
}
