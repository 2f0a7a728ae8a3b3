// Names the webhook and the admission policies share with the cluster: labels and annotations
// that platform teams and tenants set or read.

/** The namespace label that asks for a mode (how far it is honoured is the config's webhook.namespaceLabels). */
export const MODE_LABEL = 'probe-lint.dev/mode';

/** The annotation recording what was injected at admission: `rule:container,…`. */
export const INJECTED_ANNOTATION = 'probe-lint.dev/injected';
