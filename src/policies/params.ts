// The policies' parameters: the probe-lint config as the data of one ConfigMap, which the policies
// read at every admission, so a changed mode, option or exemption takes effect without
// re-applying the policies. ConfigMap values are strings; absent keys mean the engine's defaults.
import { ruleEnabled, ruleOptions, severityOverride, type ProbeLintConfig } from '../engine/config.js';
import type { AnyRule } from '../engine/rule.js';

/** The ConfigMap data for `config`. `today` (YYYY-MM-DD) drops exemptions that have expired. */
export function policyParameters(config: ProbeLintConfig, rules: readonly AnyRule[], today: string): Record<string, string> {
  const data: Record<string, string> = {};
  const webhook = config.webhook ?? {};
  data.defaultMode = webhook.mode ?? 'warn';
  data.namespaceLabels = webhook.namespaceLabels ?? 'tighten-only';
  // Sorted by namespace, as Helm ranges over a map: the chart's rendering is the same.
  const namespaces = Object.entries(webhook.namespaces ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const pinned = namespaces.filter(([, entry]) => entry.mode !== undefined);
  if (pinned.length > 0) data.namespaceModes = pinned.map(([namespace, entry]) => `${namespace}=${entry.mode}`).join(',');
  data.annotations = String(config.suppression?.annotations !== false);
  data.annotationsInEnforce = String(webhook.annotationsInEnforce === true);
  if (config.suppression?.annotationRules !== undefined) data.annotationRules = config.suppression.annotationRules.join(',');

  for (const rule of rules) {
    const setting = config.rules?.[rule.meta.id];
    if (!ruleEnabled(setting)) data[`severity.${rule.meta.id}`] = 'off';
    else {
      const severity = severityOverride(setting);
      if (severity !== undefined) data[`severity.${rule.meta.id}`] = severity;
    }
    for (const [option, value] of Object.entries(ruleOptions(setting))) data[`${rule.meta.id}.${option}`] = String(value);
    const optIn = rule.meta.admission?.optIn;
    if (optIn !== undefined) {
      data[`inject.${optIn.configKey}`] = String(webhook[optIn.configKey] === true);
      // webhook.fixAtAdmission leaves the rule out of admission fixes altogether, whatever opts in.
      if (webhook.fixAtAdmission !== undefined && !webhook.fixAtAdmission.includes(rule.meta.id)) data[`inject.${optIn.configKey}.allowed`] = 'false';
      const namespaces = Object.entries(webhook.namespaces ?? {}).filter(([, entry]) => typeof entry[optIn.configKey] === 'boolean');
      if (namespaces.length > 0)
        data[`inject.${optIn.configKey}.namespaces`] = namespaces.map(([namespace, entry]) => `${namespace}=${String(entry[optIn.configKey])}`).join(',');
    }
  }
  if (config.cluster?.podsPerNode !== undefined) data.podsPerNode = String(config.cluster.podsPerNode);
  if (config.cluster?.densePodsPerNode !== undefined) data['cluster.densePodsPerNode'] = String(config.cluster.densePodsPerNode);

  const ignore = (config.ignore ?? [])
    .filter((entry) => entry.expires === undefined || entry.expires >= today)
    .map((entry) =>
      [(entry.rules ?? ['*']).join(','), globRegex(entry.kind), globRegex(entry.namespace), globRegex(entry.name), globRegex(entry.container)].join(';'),
    );
  if (ignore.length > 0) data.ignore = ignore.join('\n');
  return data;
}

/** A shell glob as an anchored RE2 expression (no glob, or `*`, matches anything). */
export function globRegex(glob: string | undefined): string {
  if (glob === undefined) return '^.*$';
  // Go's regexp.QuoteMeta (what the chart's template uses), then the glob's wildcards.
  const quoted = glob.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
  return `^${quoted.replace(/\\\*/g, '.*').replace(/\\\?/g, '.')}$`;
}
