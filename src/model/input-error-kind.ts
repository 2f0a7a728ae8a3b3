/**
 * Why an input could not be linted, so that reports can name the cause and config can decide what
 * it means (inputErrors.network): `network` is an input only the network could complete (a missing
 * chart dependency, a remote kustomize base or schema), which a trusted step fetches before the lint.
 */
export type InputErrorKind = 'read' | 'yaml' | 'template' | 'render' | 'network' | 'refused' | 'limit' | 'rule' | 'fix' | 'no-objects';
