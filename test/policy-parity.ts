// What the admission policies must report, object by object: the engine's findings in the rules
// the policies cover, over every built-in pod-bearing object of the rule fixtures and the real
// corpus. Shared by the real API server's parity test (e2e) and the offline one (celcheck).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES } from '../rules/index.js';
import type { ClusterFacts } from '../src/engine/cluster-facts.js';
import type { ProbeLintConfig } from '../src/engine/config.js';
import type { Finding } from '../src/engine/finding.js';
import { LintSession } from '../src/lint/index.js';
import type { Severity } from '../src/engine/rule.js';
import { isKubeObject, type KubeObject } from '../src/model/resource.js';
import { expressedByPolicies } from '../src/policies/coverage.js';
import { policyRules } from '../src/policies/validating.js';
import { lintDocumentsOf } from '../src/source/parse/documents.js';
import { SourceFile } from '../src/source/parse/source-file.js';
import { ROOT, SHARED } from './helpers.js';
import { writtenParityObjects } from './parity-objects.js';

/** Infos raised to warnings, so that every rule the policies cover shows as a warning on a dry run; a dense cluster, so the exec rule speaks. */
export const PARITY_CONFIG: ProbeLintConfig = {
  rules: { 'missing-liveness-probe': 'warning', 'missing-readiness-probe': 'warning', 'liveness-without-startup-probe': 'warning' },
  cluster: { podsPerNode: 80 },
  webhook: { namespaces: { strict: { mode: 'enforce' }, quiet: { mode: 'off' } } },
};
/** The rules the policies cover, in the registry's order (the order the policies list them in). */
export const COVERED = new Set(policyRules(RULES).map(({ rule }) => rule.meta.id));
const RULE_BY_ID = new Map(RULES.map((rule) => [rule.meta.id, rule]));

/** A finding the policies write: of a rule they cover, in a message its CEL writes. */
function expressed(finding: Finding): boolean {
  return COVERED.has(finding.rule) && expressedByPolicies(RULE_BY_ID.get(finding.rule)!, finding.messageId);
}
export const RESOURCES: Record<string, string> = {
  Pod: '/api/v1/namespaces/NS/pods',
  ReplicationController: '/api/v1/namespaces/NS/replicationcontrollers',
  PodTemplate: '/api/v1/namespaces/NS/podtemplates',
  Deployment: '/apis/apps/v1/namespaces/NS/deployments',
  StatefulSet: '/apis/apps/v1/namespaces/NS/statefulsets',
  DaemonSet: '/apis/apps/v1/namespaces/NS/daemonsets',
  ReplicaSet: '/apis/apps/v1/namespaces/NS/replicasets',
  Job: '/apis/batch/v1/namespaces/NS/jobs',
  CronJob: '/apis/batch/v1/namespaces/NS/cronjobs',
};
const API_VERSIONS: Record<string, string> = { '': 'v1', apps: 'apps/v1', batch: 'batch/v1' };

/** The engine's findings for the same object (through the lint session, as an admitted object), in the rules the policies cover. */
export function engineFindings(object: unknown, config: ProbeLintConfig, cluster: ClusterFacts): Finding[] {
  const outcome = new LintSession({ rules: RULES, config, cluster }).lintObjects([object as KubeObject], { minSeverity: 'info' });
  // lintObjects puts findings in report order; the policies list them as the engine meets them: in the object's order.
  return outcome.findings.filter((finding) => expressed(finding)).sort((a, b) => order(a) - order(b));
}

/** Where a finding stands in the object: its container (containers, then init containers), then the engine's own order. */
function order(finding: Finding): number {
  const match = /\/(containers|initContainers|ephemeralContainers)\/(\d+)/.exec(finding.pointer);
  const container = match === null ? -1 : ['containers', 'initContainers', 'ephemeralContainers'].indexOf(match[1]!) * 10_000 + Number(match[2]);
  return container * 10 + PROBE_ORDER.findIndex((probe) => finding.pointer.includes(`/${probe}`));
}
const PROBE_ORDER = ['startupProbe', 'livenessProbe', 'readinessProbe'];

/** The engine's findings for the same object, in the rules the policies cover, at the severities shown at admission. */
export function engineRules(object: unknown, config: ProbeLintConfig, cluster: ClusterFacts, severities: readonly Severity[] = ['error', 'warning']): string[] {
  return [
    ...new Set(
      engineFindings(object, config, cluster)
        .filter((finding) => severities.includes(finding.severity))
        .map((finding) => finding.rule),
    ),
  ].sort();
}

/** Per rule, its findings' short texts as a policy writes them: `container "web": text; text; container "db": text` (an object rule's without prefix). */
export function policyTexts(findings: readonly Finding[]): Map<string, string> {
  const texts = new Map<string, Map<string, string[]>>();
  for (const rule of COVERED) {
    for (const finding of findings.filter((candidate) => candidate.rule === rule)) {
      const byContainer = texts.get(rule) ?? texts.set(rule, new Map()).get(rule)!;
      const key = finding.container ?? '';
      (byContainer.get(key) ?? byContainer.set(key, []).get(key)!).push(finding.short);
    }
  }
  return new Map(
    [...texts].map(([rule, byContainer]) => [
      rule,
      [...byContainer].map(([container, shorts]) => (container === '' ? shorts.join('; ') : `container "${container}": ${shorts.join('; ')}`)).join('; '),
    ]),
  );
}

/**
 * Per rule, the audit annotation a policy writes: its shown findings' texts, then its infos' (a
 * rule's CEL lists the infos after the rest, container by container in each part).
 */
export function auditTexts(findings: readonly Finding[]): Map<string, string> {
  const shown = policyTexts(findings.filter((finding) => finding.severity !== 'info'));
  const infos = policyTexts(findings.filter((finding) => finding.severity === 'info'));
  return new Map(
    [...COVERED].flatMap((rule) => {
      const parts = [shown.get(rule), infos.get(rule)].filter((part): part is string => part !== undefined);
      return parts.length === 0 ? [] : [[rule, parts.join('; ')] as const];
    }),
  );
}

/** The one message a policy shows for the findings at `severities`, in the rules' order; '' when it shows none. */
export function policyMessage(findings: readonly Finding[], severities: readonly Severity[]): string {
  const shown = policyTexts(findings.filter((finding) => severities.includes(finding.severity)));
  return [...COVERED]
    .filter((rule) => shown.has(rule))
    .map((rule) => `[${rule}] ${shown.get(rule)}`)
    .join(' ');
}

export interface ParityObject {
  from: string;
  object: any;
  /** Written for these tests (test/parity-objects.ts, the rule fixtures), not from the optional real corpus. */
  own: boolean;
}

/** The real corpus beside the checkout, when it is there (CI has it; a fresh clone elsewhere does not). */
export const PARITY_CORPUS = join(SHARED, 'corpus/real');

/**
 * The objects written for parity, every built-in pod-bearing object of the rule fixtures, and those of
 * the real corpus where it is present, with where each came from.
 */
export function parityObjects(): ParityObject[] {
  const walk = (directory: string): string[] =>
    readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(directory, entry.name)) : /\.(ya?ml|json)$/.test(entry.name) ? [join(directory, entry.name)] : [],
    );
  const files = walk(join(ROOT, 'rules')).filter((file) => file.includes('/fixtures/'));
  if (existsSync(PARITY_CORPUS)) files.push(...walk(PARITY_CORPUS));
  const objects: ParityObject[] = writtenParityObjects().map((written) => ({ ...written, own: true }));
  for (const file of files.sort()) {
    const source = new SourceFile(file, readFileSync(file, 'utf8'));
    for (const document of lintDocumentsOf(source)) {
      for (const resource of document.resources) {
        const object = resource.object as any;
        const group = String(object.apiVersion).includes('/') ? String(object.apiVersion).split('/')[0]! : '';
        if (!isKubeObject(object) || RESOURCES[object.kind] === undefined || API_VERSIONS[group] !== object.apiVersion) continue;
        const { status: _status, ...rest } = object;
        const metadata = { ...(rest.metadata ?? {}), name: typeof rest.metadata?.name === 'string' ? rest.metadata.name : `unnamed-${objects.length}` };
        delete metadata.namespace;
        objects.push({
          from: `${file.replace(`${ROOT}/`, '').replace(`${SHARED}/`, '../shared/')}: ${object.kind}/${metadata.name}`,
          object: { ...rest, metadata },
          own: !file.startsWith(`${PARITY_CORPUS}/`),
        });
      }
    }
  }
  return objects;
}

/**
 * The parity tests' strength, from their own objects alone: at least 100 findings, and every rule the
 * policies cover found at least once (so a policy that drifts from its rule shows, corpus or not).
 */
export function assertOwnStrength(own: ReadonlyMap<string, number>): void {
  const total = [...own.values()].reduce((sum, count) => sum + count, 0);
  assert.ok(total >= 100, `the objects written for parity give ${total} findings in covered rules; at least 100 are needed`);
  assert.deepEqual([...COVERED].filter((rule) => !own.has(rule)).sort(), [], 'every covered rule is found in the objects written for parity');
}
