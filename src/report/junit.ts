// JUnit XML, as Jenkins, GitLab and Azure DevOps read it, valid against Jenkins' JUnit schema: a test
// suite per file, a test case per object and rule, failing for findings at or above --fail-on; the
// findings below it are the test case's output. Input errors are test cases in error. Every text goes
// through the XML encoder (xml.ts): a name or message cannot end an element, add a test case or break
// the document.
import { severityRank } from '../engine/finding.js';
import { inputErrorWhere, renderedNote, whereText, type LocatedFinding, type ReportInput } from './located.js';
import { standaloneMessage } from './finding-text.js';
import { visible } from './visible.js';
import { xmlElement, xmlText } from './xml.js';

interface TestCase {
  name: string;
  /** <failure>, <error>, <system-out>, in the order the schema wants them (error before failure before output). */
  error?: { message: string; type: string; text: string };
  failure?: { message: string; type: string; text: string };
  output?: string;
}

export function formatJunit(input: ReportInput): string {
  const fails = (finding: LocatedFinding) => input.failOn !== 'never' && severityRank(finding.severity) >= severityRank(input.failOn);
  // One pass over the findings, by object and rule: a dump of 100,000 findings stays linear.
  const byObject = new Map<string, Map<string, LocatedFinding[]>>();
  const keyOf = (file: string | undefined, name: string) => `${file ?? ''}\u0000${name}`;
  const objects = input.objects();
  const known = new Set(objects.map((object) => keyOf(object.file, object.name)));
  for (const finding of input.findings) {
    const name = objectName(finding);
    const key = keyOf(finding.file, name);
    // A finding whose object the list lacks (not a pod-bearing one) still gets its test cases.
    if (!known.has(key)) {
      known.add(key);
      objects.push({ file: finding.file, name });
    }
    const rules = byObject.get(key) ?? byObject.set(key, new Map()).get(key)!;
    const list = rules.get(finding.rule);
    if (list) list.push(finding);
    else rules.set(finding.rule, [finding]);
  }
  const suites = new Map<string, TestCase[]>();
  const suiteFor = (file: string) => suites.get(file) ?? suites.set(file, []).get(file)!;
  for (const object of objects) {
    const rules = byObject.get(keyOf(object.file, object.name));
    for (const rule of input.enabledRules) {
      const own = rules?.get(rule) ?? [];
      const testCase: TestCase = { name: `${object.name}: ${rule}` };
      const failing = own.filter(fails);
      if (failing.length > 0)
        testCase.failure = { message: failing.map((finding) => finding.short).join(' | '), type: failing[0]!.severity, text: lines(failing) };
      const passing = own.filter((finding) => !fails(finding));
      if (passing.length > 0) testCase.output = lines(passing);
      suiteFor(object.file ?? '(cluster)').push(testCase);
    }
  }
  for (const error of input.inputErrors) {
    // One config lets pass is reported, not failed.
    suiteFor(error.file).push(
      error.severity === 'warning'
        ? { name: 'input', output: `${inputErrorWhere(error)}: warning: ${error.message}` }
        : { name: 'input', error: { message: error.message, type: 'input', text: inputErrorWhere(error) } },
    );
  }
  const count = (cases: readonly TestCase[], key: 'failure' | 'error') => cases.filter((testCase) => testCase[key] !== undefined).length;
  const all = [...suites.values()].flat();
  const body = [...suites].map(([file, cases]) => {
    const className = visible(file);
    const written = cases.map((testCase) => `    ${testCaseXml(testCase, className)}`);
    return `  ${xmlElement('testsuite', { name: className, tests: cases.length, failures: count(cases, 'failure'), errors: count(cases, 'error'), skipped: 0 }, written.length > 0 ? `\n${written.join('\n')}\n  ` : undefined)}`;
  });
  const root = xmlElement(
    'testsuites',
    { name: 'probe-lint', tests: all.length, failures: count(all, 'failure'), errors: count(all, 'error') },
    body.length > 0 ? `\n${body.join('\n')}\n` : undefined,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n${root}\n`;
}

function testCaseXml(testCase: TestCase, className: string): string {
  const children: string[] = [];
  if (testCase.error)
    children.push(xmlElement('error', { message: visible(testCase.error.message), type: testCase.error.type }, xmlText(visible(testCase.error.text))));
  if (testCase.failure)
    children.push(xmlElement('failure', { message: visible(testCase.failure.message), type: testCase.failure.type }, xmlText(testCase.failure.text)));
  if (testCase.output !== undefined) children.push(xmlElement('system-out', {}, xmlText(testCase.output)));
  return xmlElement(
    'testcase',
    { classname: className, name: visible(testCase.name) },
    children.length > 0 ? `\n      ${children.join('\n      ')}\n    ` : undefined,
  );
}

function objectName(finding: LocatedFinding): string {
  return [finding.identity.kind, finding.identity.namespace, finding.identity.name ?? '(unnamed)'].filter((part) => part !== undefined).join('/');
}

/** One line per finding, each made visible (a newline in a name cannot start a line of its own). */
function lines(findings: readonly LocatedFinding[]): string {
  return findings
    .map((finding) => visible(`${whereText(finding)} ${finding.severity} ${finding.rule}: ${standaloneMessage(finding)}${renderedNote(finding)}`))
    .join('\n');
}
