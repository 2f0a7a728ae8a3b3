import type { WebhookConfig, WebhookMode } from '../engine/config.js';

export const MODE_LABEL = 'probe-lint.dev/mode';
export const INJECT_LABEL = 'probe-lint.dev/inject-startup-probe';
const MODES = new Set<WebhookMode>(['enforce', 'warn', 'off']);

/** Where namespace labels come from: the cluster cache when there is one. Never blocks. */
export interface NamespaceLabels {
  labelsOf(namespace: string): Readonly<Record<string, string>> | undefined;
}

/**
 * Mode and startup-probe injection per namespace: the namespace's labels when the cluster cache
 * knows them, else the config's `webhook.namespaces` entry, else the config's defaults.
 */
export class NamespacePolicy {
  constructor(
    private readonly config: WebhookConfig,
    private readonly labels: NamespaceLabels | undefined,
  ) {}

  modeFor(namespace: string | undefined): WebhookMode {
    const label = namespace === undefined ? undefined : this.labels?.labelsOf(namespace)?.[MODE_LABEL];
    if (label !== undefined && MODES.has(label as WebhookMode)) return label as WebhookMode;
    return (namespace === undefined ? undefined : this.config.namespaces?.[namespace]?.mode) ?? this.config.mode ?? 'warn';
  }

  /** Injection is on by config, by the namespace label, or by the object's annotation of the same name. */
  injectsStartupProbe(namespace: string | undefined, objectAnnotations: Record<string, string> | undefined): boolean {
    if (objectAnnotations?.[INJECT_LABEL] === 'true') return true;
    if (namespace !== undefined) {
      const label = this.labels?.labelsOf(namespace)?.[INJECT_LABEL];
      if (label !== undefined) return label === 'true';
      const configured = this.config.namespaces?.[namespace]?.injectStartupProbe;
      if (configured !== undefined) return configured;
    }
    return this.config.injectStartupProbe ?? false;
  }
}
