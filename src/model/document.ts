import type { Position } from './position.js';
import type { Resource } from './resource.js';

/**
 * Something found in a document's source text rather than in its decoded value, e.g. a key
 * written twice. `kind` names what it is; rules pick the kinds they report.
 */
export interface SourceIssue {
  kind: string;
  position: Position;
  /** What the rule's message needs, e.g. `{ key: "port" }`. */
  detail: Readonly<Record<string, string>>;
}

/** One document of input: its resources, and the issues found in its source text. */
export interface LintDocument {
  resources: Resource[];
  sourceIssues?: readonly SourceIssue[];
}
