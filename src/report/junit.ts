// JUnit XML, as Jenkins, GitLab and Azure DevOps read it (written with junit-report-builder): a test
// suite per file, a test case per object and rule, failing for findings at or above --fail-on; the
// findings below it are the test case's output. Input errors are test cases in error.
import { createRequire } from 'node:module';
import type { Builder } from 'junit-report-builder';
import { severityRank } from '../engine/finding.js';
import { renderedNote, whereText, type LocatedFinding, type ReportInput } from './located.js';
import { standaloneMessage } from './finding-text.js';
import { visible } from './visible.js';

// The builder loads only when this format is asked for. The package is CommonJS whose
// module.exports is the builder (its types describe an ES default export).
const load = () => createRequire(import.meta.url)('junit-report-builder') as Builder;

export function formatJunit(input: ReportInput): string {
  const report = load().newBuilder().name('probe-lint');
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
  const suites = new Map<string, ReturnType<typeof report.testSuite>>();
  const suiteFor = (file: string) => suites.get(file) ?? suites.set(file, report.testSuite().name(visible(file))).get(file)!;
  for (const object of objects) {
    const file = object.file ?? '(cluster)';
    const rules = byObject.get(keyOf(object.file, object.name));
    for (const rule of input.enabledRules) {
      const own = rules?.get(rule) ?? [];
      const testCase = suiteFor(file)
        .testCase()
        .className(visible(file))
        .name(visible(`${object.name}: ${rule}`));
      if (object.file !== undefined) testCase.file(visible(object.file));
      const failing = own.filter(fails);
      if (failing.length > 0) testCase.failure(visible(failing.map((finding) => finding.short).join(' | ')), failing[0]!.severity).stacktrace(lines(failing));
      const passing = own.filter((finding) => !fails(finding));
      if (passing.length > 0) testCase.standardOutput(lines(passing));
    }
  }
  for (const error of input.inputErrors) {
    const where = error.line === undefined ? error.file : `${error.file}:${error.line}:${error.column ?? 1}`;
    suiteFor(error.file).testCase().className(visible(error.file)).name('input').error(visible(error.message), 'input', visible(where));
  }
  return `${report.build()}\n`;
}

function objectName(finding: LocatedFinding): string {
  return [finding.identity.kind, finding.identity.namespace, finding.identity.name ?? '(unnamed)'].filter((part) => part !== undefined).join('/');
}

function lines(findings: readonly LocatedFinding[]): string {
  return findings
    .map((finding) => visible(`${whereText(finding)} ${finding.severity} ${finding.rule}: ${standaloneMessage(finding)}${renderedNote(finding)}`))
    .join('\n');
}
