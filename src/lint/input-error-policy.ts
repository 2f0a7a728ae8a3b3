// What the config says an input error of a kind means (inputErrors.network): an error stops the run
// with exit 2, a warning is shown and lets the findings decide, an ignored one is left out and only
// counted. Every kind not named stays an error, so nothing is hidden unless the config says so.
import type { ProbeLintConfig } from '../engine/config.js';
import type { InputError } from '../report/located.js';

export interface PolicedInputErrors {
  inputErrors: InputError[];
  /** Left out by `ignore`, counted so the run can say so. */
  ignored: number;
}

export function policedInputErrors(errors: readonly InputError[], config: ProbeLintConfig): PolicedInputErrors {
  const network = config.inputErrors?.network ?? 'error';
  if (network === 'error') return { inputErrors: [...errors], ignored: 0 };
  const kept = errors.filter((error) => error.kind !== 'network' || network !== 'ignore');
  return {
    inputErrors: kept.map((error) => (error.kind === 'network' ? { ...error, severity: 'warning' as const } : error)),
    ignored: errors.length - kept.length,
  };
}
