import type { NamespaceLabels } from '../cluster/namespace-cache.js';
import type { WebhookConfig, WebhookMode } from '../engine/config.js';
import type { AdmissionOptIn } from '../engine/rule.js';

import { MODE_LABEL } from '../engine/admission-names.js';

const MODES = new Set<string>(['enforce', 'warn', 'off']);
const STRICTNESS: Record<WebhookMode, number> = { off: 0, warn: 1, enforce: 2 };

export type { NamespaceLabels } from '../cluster/namespace-cache.js';

/**
 * Mode and admission opt-ins per namespace. The platform decides: a namespace's entry in the
 * config wins; the namespace label `probe-lint.dev/mode` may only make a namespace stricter than the
 * config's default (`webhook.namespaceLabels: tighten-only`, the default, since whoever may label
 * a namespace may be a tenant), or set any mode when the config trusts labels (`trusted`), or is
 * disregarded (`ignored`). Labels come from the cluster cache; the admission path never waits on it.
 */
export class NamespacePolicy {
  constructor(
    private readonly config: WebhookConfig,
    private readonly labels: NamespaceLabels | undefined,
  ) {}

  modeFor(namespace: string | undefined): WebhookMode {
    const pinned = namespace === undefined ? undefined : this.config.namespaces?.[namespace]?.mode;
    if (pinned !== undefined) return pinned;
    const base = this.config.mode ?? 'warn';
    const trust = this.config.namespaceLabels ?? 'tighten-only';
    const label = namespace === undefined || trust === 'ignored' ? undefined : this.labels?.labelsOf(namespace)?.[MODE_LABEL];
    if (label === undefined || !MODES.has(label)) return base;
    const mode = label as WebhookMode;
    if (trust === 'trusted') return mode;
    return STRICTNESS[mode] > STRICTNESS[base] ? mode : base;
  }

  /**
   * A rule's admission fix is opted into by the object's annotation of the opt-in's name (it
   * concerns only that object), the namespace's config entry, the namespace label (unless labels
   * are ignored), or the config's default.
   */
  optedIn(optIn: AdmissionOptIn, namespace: string | undefined, objectAnnotations: Readonly<Record<string, unknown>> | undefined): boolean {
    if (objectAnnotations?.[optIn.label] === 'true') return true;
    if (namespace !== undefined) {
      const configured = this.config.namespaces?.[namespace]?.[optIn.configKey];
      if (typeof configured === 'boolean') return configured;
      if (this.config.namespaceLabels !== 'ignored') {
        const label = this.labels?.labelsOf(namespace)?.[optIn.label];
        if (label !== undefined) return label === 'true';
      }
    }
    return this.config[optIn.configKey] === true;
  }
}
