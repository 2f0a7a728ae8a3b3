// What a probe's check is on the wire, as the kubelet sends it, so that two probes can be compared
// the way they behave rather than the way they are written.
import type { Container } from 'kubernetes-types/core/v1.js';
import type { EffectiveProbe } from './effective-probe.js';
import { resolvePort } from './effective-probe.js';
import { execCommand } from './exec-command.js';

/**
 * A comparable string for the check a probe runs: two probes with the same identity hit the same
 * endpoint the same way. Follows the kubelet: `$(VAR)` in an exec command is expanded from the
 * container's static env (kubelet ExpandContainerCommandOnlyStatic); an HTTP scheme is lower-cased;
 * the path is sent with a leading "/" (Go's URL formatting adds it to `healthz`) and without a
 * fragment; header names are case-insensitive (Go canonicalises them); a named port equals the
 * number it resolves to.
 */
// Why some mutants of this function change nothing: a part, header or name that is not a string is
// undecodable, and the rules that compare checks do not judge a container holding one; case
// normalisation and sort order change nothing as long as both probes get the same. Each identity
// starts with the handler's kind, and the handler the kind names is present (hence the `!`s).
export function checkIdentity(probe: EffectiveProbe, container: Container): string | undefined {
  const raw = probe.raw;
  const kind = probe.handlerKind;
  switch (kind) {
    case 'exec':
      return JSON.stringify([kind, execCommand(probe, container)]);
    case 'httpGet': {
      const action = raw.httpGet!;
      // Stryker disable next-line ArrayDeclaration,ConditionalExpression: an entry that is a string is undecodable
      const entries = (action.httpHeaders ?? []).filter((header) => header !== null && typeof header === 'object');
      const headers = entries.map((header) => [text(header.name).toLowerCase(), text(header.value)] as const);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: any consistent order of names does
      headers.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      // Stryker disable next-line MethodExpression: upper case normalises as well
      const scheme = (action.scheme || 'HTTP').toLowerCase();
      return JSON.stringify([kind, scheme, action.host ?? '', resolvePort(container, action.port), requestPath(action.path), headers]);
    }
    case 'tcpSocket':
      return JSON.stringify([kind, raw.tcpSocket!.host ?? '', resolvePort(container, raw.tcpSocket!.port)]);
    case 'grpc':
      return JSON.stringify([kind, raw.grpc!.port ?? 0, raw.grpc!.service ?? '']);
    // Stryker disable next-line ConditionalExpression: the last case; emptying its test reaches the same return.
    case undefined:
      return undefined;
  }
}

/** The path of the request line: "/" when empty (SetDefaults_HTTPGetAction), a leading "/" added, the fragment dropped. */
export function requestPath(path: unknown): string {
  let text = typeof path === 'string' ? path : '';
  const hash = text.indexOf('#');
  if (hash !== -1) text = text.slice(0, hash);
  return text.startsWith('/') ? text : `/${text}`;
}

/** A field the decoder has checked is a string; anything else compares by its JSON. */
function text(value: unknown): string {
  // Stryker disable next-line all: only strings reach here in a container the rules judge (anything else is undecodable).
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}
