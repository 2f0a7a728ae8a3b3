// Hostile values for the output formats' property tests: names, namespaces, container names and
// annotation values built from the pieces that have broken formats, and numbers at the API's limits,
// written into two objects with pod specs; and the CLI run in this process on them.
import fc from 'fast-check';
import { main } from '../src/cli/main.js';
import { ROOT } from './helpers.js';

/** Pieces that have broken report formats: markup, CDATA ends, links, images, mentions, table pipes, controls, non-characters. */
export const FRAGMENTS = [
  ']]>',
  '<![CDATA[',
  '</testcase>',
  '<testcase name="forged"><failure/></testcase>',
  '<!--',
  '-->',
  '<script>alert(1)</script>',
  '&',
  '&amp;',
  '"',
  "'",
  '![beacon](https://evil.example/p.png)',
  '[link](https://evil.example)',
  'https://evil.example/x',
  'www.evil.example',
  '<https://evil.example>',
  '@platform-team',
  '#123',
  '|',
  '`',
  '``',
  '\\',
  '*',
  '_',
  '<img src=x onerror=alert(1)>',
  '\n',
  '\r\n',
  '\t',
  '\u0000',
  '\u0008',
  '\u001b[31m',
  '\u2028',
  '\u202e',
  '\ufeff',
  '\ufffe',
  '\uffff',
  '\ud800',
  '\udfff',
  '::error::forged',
  '%0A',
  '${{ github.token }}',
];
const hostileText = fc
  .array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 5, unit: 'binary' })), { minLength: 1, maxLength: 5 })
  .map((parts) => parts.join(''));
/** Probe numbers the API server accepts, up to int32's largest. */
const probeNumber = fc.constantFrom(undefined, 1, 2, 10, 30, 2147483647);

export interface Case {
  name: string;
  namespace: string;
  container: string;
  annotation: string;
  period: number | undefined;
  threshold: number | undefined;
  timeout: number | undefined;
}
export const cases = fc.record({
  name: hostileText,
  namespace: hostileText,
  container: hostileText,
  annotation: hostileText,
  period: probeNumber,
  threshold: probeNumber,
  timeout: probeNumber,
});

/** Two objects with pod specs (findings of several severities on each), as JSON text: any string is written as it is. */
export function manifest(value: Case): string {
  const probe = (path: string) => ({
    httpGet: { path, port: 8080 },
    ...(value.period !== undefined ? { periodSeconds: value.period } : {}),
    ...(value.threshold !== undefined ? { failureThreshold: value.threshold } : {}),
    ...(value.timeout !== undefined ? { timeoutSeconds: value.timeout } : {}),
  });
  const container = { name: value.container, image: 'x', livenessProbe: probe('/healthz'), readinessProbe: probe('/healthz') };
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: value.name, namespace: value.namespace, annotations: { 'probe-lint.dev/ignore': `no-such-rule # ${value.annotation}` } },
    spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [container] } } },
  };
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${value.name}-pod`, namespace: value.namespace },
    spec: { containers: [{ name: value.container, image: 'x', readinessProbe: { ...probe('/'), terminationGracePeriodSeconds: 5 } }] },
  };
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [deployment, pod] });
}

export async function run(args: string[], input: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: () => input,
    isTty: false,
    env: {},
    cwd: ROOT,
  });
  return { code, stdout, stderr };
}
