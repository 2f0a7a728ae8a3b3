export { LintSession, type EngineSettings, type LintInputs, type LintSessionOptions, type OwnerLint } from './session.js';
export type { LintOutcome, CollectOptions } from './collect.js';
export { allDocuments, type LintUnit } from './units.js';
export type { TextLint } from './text.js';
export { DEFAULT_LIMITS, type AdmissionLimits, type AdmittedLint } from './admitted.js';
