// The one place a finding becomes text: every report format, admission warnings and denials use it.
import type { Finding } from '../engine/finding.js';
import { describeResource } from '../model/resource.js';

/** `Deployment/shop/web, container "app"`: what the finding is about. */
export function findingSubject(finding: Pick<Finding, 'identity' | 'container'>): string {
  return `${describeResource(finding.identity)}${finding.container === undefined ? '' : `, container "${finding.container}"`}`;
}

/** `Deployment/shop/web, container "app": <long message>`: readable on its own (text, SARIF, GitHub annotations). */
export function standaloneMessage(finding: Finding): string {
  return `${findingSubject(finding)}: ${finding.message}`;
}

/** `container "app": <short message> [rule]`: one line for a reader who already knows the object (admission warnings). */
export function shortLine(finding: Finding): string {
  const container = finding.container === undefined ? '' : `container "${finding.container}": `;
  return singleLine(`${container}${finding.short} [${finding.rule}]`);
}

/** `container "app": <long message> [rule]`: one line of a denial. */
export function longLine(finding: Finding): string {
  const container = finding.container === undefined ? '' : `container "${finding.container}": `;
  return singleLine(`${container}${finding.message} [${finding.rule}]`);
}

/** Control characters (a newline from an object's own text) become spaces. */
export function singleLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
}
