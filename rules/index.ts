import type { AnyRule, Severity } from '../src/engine/rule.js';
import * as registry from './registry.js';

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** Every rule, by default severity (errors first), then id. */
export const RULES: readonly AnyRule[] = (Object.values(registry) as AnyRule[]).sort(
  (a, b) => SEVERITY_ORDER[a.meta.severity] - SEVERITY_ORDER[b.meta.severity] || (a.meta.id < b.meta.id ? -1 : 1),
);
