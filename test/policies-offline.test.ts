// The admission policies judged offline by the API server's own CEL code (test/celcheck.ts): every
// policy compiles and evaluates without an error on every fixture and corpus object, and reports
// what the engine reports, object by object and rule by rule, in a warn and an enforce namespace.
// A broken expression fails here, in `npm test`, not only in the e2e suite. Skipped where Go is not
// installed (CI never skips).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RULES } from '../rules/index.js';
import { unknownCluster, type ClusterFacts } from '../src/engine/cluster-facts.js';
import { generatePolicies } from '../src/policies/generate.js';
import { celcheck, celcheckBinary, type CelcheckResult } from './celcheck.js';
import { assertOwnStrength, auditTexts, engineFindings, engineRules, PARITY_CONFIG, parityObjects, policyMessage } from './policy-parity.js';

const binary = celcheckBinary();
const unavailable = 'unavailable' in binary ? binary.unavailable : undefined;
if (unavailable !== undefined && process.env.CI !== undefined) throw new Error(`the offline policy check cannot run: ${unavailable}`);

const FACTS: ClusterFacts = { ...unknownCluster(), podsPerNode: 80, source: 'config' };
const policies = () =>
  generatePolicies(PARITY_CONFIG, RULES, { namespace: 'probe-lint', today: '2026-12-01' }) as { kind: string; metadata: { name: string }; spec: any }[];
const namespaceObject = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } });

/** The bindings' actions by policy: what the API server does with a failed validation. */
function actionsOf(objects: ReturnType<typeof policies>): Map<string, string[]> {
  return new Map(
    objects
      .filter((object) => object.kind === 'ValidatingAdmissionPolicyBinding')
      .map((binding) => [binding.spec.policyName as string, binding.spec.validationActions as string[]]),
  );
}

/** The messages of the policies with `action` in their bindings for one object. */
function messagesBy(result: CelcheckResult['results'][number], actions: Map<string, string[]>, action: string): string[] {
  return Object.entries(result)
    .filter(([policy]) => (actions.get(policy) ?? []).includes(action))
    .flatMap(([, outcome]) => outcome.failed);
}

/** The rule ids the policies with `action` in their bindings report for one object: "[rule-id] …" in their messages. */
function rulesBy(result: CelcheckResult['results'][number], actions: Map<string, string[]>, action: string): string[] {
  const rules = new Set<string>();
  for (const [policy, outcome] of Object.entries(result)) {
    if (!(actions.get(policy) ?? []).includes(action)) continue;
    for (const message of outcome.failed) for (const match of message.matchAll(/\[([a-z][a-z-]+)\] /g)) rules.add(match[1]!);
  }
  return [...rules].sort();
}

describe('the admission policies, offline, with the API server’s CEL', { skip: unavailable }, () => {
  const path = 'path' in binary ? binary.path : '';

  it('compile and evaluate without an error on every fixture and corpus object, and report what the engine reports in a warn namespace', () => {
    const objects = parityObjects();
    const generated = policies();
    const { results } = celcheck(
      path,
      generated,
      namespaceObject('parity'),
      objects.map(({ object }) => ({ ...object, metadata: { ...object.metadata, namespace: 'parity' } })),
    );
    const actions = actionsOf(generated);
    const tally = { objects: objects.length, refused: 0, findings: 0, differences: [] as string[], errors: [] as string[] };
    /** Findings by rule among the objects written for parity: the test's strength without the optional corpus. */
    const own = new Map<string, number>();
    results.forEach((result, index) => {
      const { from, object } = objects[index]!;
      if (Object.values(result).some((outcome) => outcome.refused !== undefined)) {
        tally.refused++;
        return;
      }
      for (const [policy, outcome] of Object.entries(result)) for (const error of outcome.errors) tally.errors.push(`${from}: ${policy}: ${error}`);
      const findings = engineFindings(object, PARITY_CONFIG, FACTS);
      const expected = engineRules(object, PARITY_CONFIG, FACTS);
      tally.findings += expected.length;
      if (objects[index]!.own) for (const rule of expected) own.set(rule, (own.get(rule) ?? 0) + 1);
      // The words too: the policy's message is the engine's short messages, rule by rule and container by container.
      const message = policyMessage(findings, ['error', 'warning']);
      const reported = messagesBy(result, actions, 'Warn');
      if (reported.join('\n') !== (message === '' ? '' : message))
        tally.differences.push(`${from}:\n  engine   ${message}\n  policies ${reported.join(' | ')}`);
    });
    console.log(
      `offline policy parity: ${tally.objects} objects (${tally.refused} that do not decode), ${tally.findings} engine findings in covered rules, ${tally.differences.length} objects differ`,
    );
    assertOwnStrength(own);
    assert.deepEqual(tally.errors, []);
    assert.deepEqual(tally.differences, []);
  });

  // One run over every object in an enforce namespace, judged by the two tests below.
  let enforced: { denied: number; warned: number } | undefined;
  const enforceRun = (): { denied: number; warned: number } => {
    if (enforced !== undefined) return enforced;
    const objects = parityObjects();
    const generated = policies();
    const actions = actionsOf(generated);
    const { results } = celcheck(
      path,
      generated,
      namespaceObject('strict'),
      objects.map(({ object }) => ({ ...object, metadata: { ...object.metadata, namespace: 'strict' } })),
    );
    let denied = 0;
    let warned = 0;
    results.forEach((result, index) => {
      if (Object.values(result).some((outcome) => outcome.refused !== undefined)) return;
      const { from, object } = objects[index]!;
      assert.deepEqual(rulesBy(result, actions, 'Deny'), engineRules(object, PARITY_CONFIG, FACTS, ['error']), `${from}: denied`);
      assert.deepEqual(rulesBy(result, actions, 'Warn'), engineRules(object, PARITY_CONFIG, FACTS, ['warning']), `${from}: warned`);
      denied += rulesBy(result, actions, 'Deny').length;
      warned += rulesBy(result, actions, 'Warn').length;
    });
    return (enforced = { denied, warned });
  };

  it('deny the errors and warn of the warnings in an enforce namespace, as the engine grades them', () => {
    const { denied, warned } = enforceRun();
    // Few objects hold an error the API server lets through (most errors it refuses itself); the
    // objects written for parity alone give more than 100 warnings.
    assert.ok(denied > 0 && warned > 100, `${denied} denials, ${warned} warnings`);
  });

  it('write every finding to the audit log, infos too, whatever else the object has: one annotation per rule, in the engine’s words', () => {
    // The default config: infos stay infos (and density is unknown, so frequent exec probes are infos too).
    const config = {};
    const generated = generatePolicies(config, RULES, { namespace: 'probe-lint', today: '2026-12-01' }) as ReturnType<typeof policies>;
    const objects = parityObjects().filter((candidate) => candidate.own);
    const { results } = celcheck(
      path,
      generated,
      namespaceObject('parity'),
      objects.map(({ object }) => ({ ...object, metadata: { ...object.metadata, namespace: 'parity' } })),
    );
    const differences: string[] = [];
    let infosOnly = 0;
    let infos = 0;
    results.forEach((result, index) => {
      if (Object.values(result).some((outcome) => outcome.refused !== undefined)) return;
      const findings = engineFindings(objects[index]!.object, config, unknownCluster());
      if (findings.length > 0 && findings.every((finding) => finding.severity === 'info')) infosOnly++;
      infos += findings.filter((finding) => finding.severity === 'info').length;
      const expected = Object.fromEntries(auditTexts(findings));
      const annotated = Object.fromEntries(Object.entries(result['probe-lint-warn']?.audit ?? {}).filter(([, value]) => value !== ''));
      if (JSON.stringify(annotated, Object.keys(annotated).sort()) !== JSON.stringify(expected, Object.keys(expected).sort()))
        differences.push(`${objects[index]!.from}:\n  engine   ${JSON.stringify(expected)}\n  policies ${JSON.stringify(annotated)}`);
    });
    assert.ok(infosOnly >= 10 && infos >= 100, `${infosOnly} objects with only infos, ${infos} infos`);
    assert.deepEqual(differences, []);
  });

  it('fail on a broken expression: a rule whose CEL does not compile is an error on every object', () => {
    const generated = policies();
    const warn = generated.find((object) => object.kind === 'ValidatingAdmissionPolicy' && object.metadata.name === 'probe-lint-warn')!;
    const variable = warn.spec.variables.find((candidate: { name: string }) => candidate.name === 'found_timeout_not_below_period');
    assert.ok(variable, 'the warn policy checks timeout-not-below-period');
    variable.expression += ' && (';
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'parity' }, spec: { containers: [{ name: 'web', image: 'x' }] } };
    const [result] = celcheck(path, generated, namespaceObject('parity'), [pod]).results;
    assert.match(result!['probe-lint-warn']!.errors.join('\n'), /compil|Syntax error/i);
  });
});
