// What a probe's check is on the wire, as the kubelet sends it, so that two probes can be compared
// the way they behave rather than the way they are written.
import type { Container } from 'kubernetes-types/core/v1.js';
import type { EffectiveProbe } from './effective-probe.js';
import { resolvePort } from './effective-probe.js';

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

/**
 * The exec command as the kubelet runs it: `$(VAR)` expanded from the container's static env
 * (kubelet ExpandContainerCommandOnlyStatic), where a variable set by valueFrom is "" — the pod's
 * IP, a Secret's value — whatever the container's process sees.
 */
export function execCommand(probe: EffectiveProbe, container: Container): string[] {
  // Stryker disable next-line OptionalChaining,ConditionalExpression,LogicalOperator,StringLiteral: exec is present; parts are strings
  const parts = (probe.raw.exec?.command ?? []).map((part) => (typeof part === 'string' ? part : (JSON.stringify(part) ?? '')));
  // Most commands reference no variable: the container's env is then not read at all (this runs per exec probe admitted).
  if (!parts.some((part) => part.includes('$'))) return parts;
  const env = staticEnv(container);
  return parts.map((part) => expandVariables(part, env));
}

/**
 * The container's env as written: name → literal value, or undefined for one set by valueFrom (known
 * only in the cluster); the last entry of a name wins, as in the container's process.
 */
export function writtenEnv(container: Container): Map<string, string | undefined> {
  const env = new Map<string, string | undefined>();
  // An entry that is not a mapping, or a name that is no string, is undecodable: counted when an exec
  // command expands $(VAR), and then the container is not judged.
  // Stryker disable next-line ArrayDeclaration,ConditionalExpression: an entry that is no mapping or a name that is no string is undecodable
  for (const entry of container.env ?? []) {
    // Stryker disable next-line ConditionalExpression: an env entry that is no mapping, or a name that is no string, is undecodable.
    if (entry !== null && typeof entry === 'object' && typeof entry.name === 'string')
      env.set(entry.name, entry.valueFrom === undefined || entry.valueFrom === null ? (typeof entry.value === 'string' ? entry.value : '') : undefined);
  }
  return env;
}

/** name → value for $(VAR): a valueFrom entry expands to "" (kubelet EnvVarsToMap takes each entry's Value, empty for valueFrom). */
function staticEnv(container: Container): Map<string, string> {
  return new Map([...writtenEnv(container)].map(([name, value]) => [name, value ?? '']));
}

/**
 * Kubernetes' `$(VAR)` expansion (third_party/forked/golang/expansion): `$$` is a literal `$`,
 * an unknown or unterminated reference is kept as written.
 */
export function expandVariables(input: string, env: ReadonlyMap<string, string>): string {
  // Stryker disable next-line ConditionalExpression,StringLiteral: a shortcut; without "$" the loop copies the input.
  if (!input.includes('$')) return input;
  let output = '';
  let checkpoint = 0;
  // Stryker disable next-line EqualityOperator: one step past the end reads undefined, which is no "$".
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    output += input.slice(checkpoint, cursor);
    const next = input[cursor + 1];
    let advance = 1;
    if (next === '$') output += '$';
    else if (next === '(') {
      const close = input.indexOf(')', cursor + 2);
      if (close === -1) output += '$(';
      else {
        const name = input.slice(cursor + 2, close);
        output += env.get(name) ?? `$(${name})`;
        advance = close - cursor;
      }
    } else output += `$${next}`;
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return output + input.slice(checkpoint);
}

/** A field the decoder has checked is a string; anything else compares by its JSON. */
function text(value: unknown): string {
  // Stryker disable next-line all: only strings reach here in a container the rules judge (anything else is undecodable).
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}
