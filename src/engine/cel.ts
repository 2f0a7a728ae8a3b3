// Building blocks for the CEL that rules contribute to the admission policies (`probe-lint
// policies`). The API server evaluates it on the object after defaulting, so every probe number is
// set; the helpers still fall back to the API defaults, as the engine does, for objects written
// without them (dry runs of old manifests, tests).
import { PROBE_DEFAULTS, PROBE_TYPES, probeField, type ProbeNumberField } from '../model/effective-probe.js';

/** The probe fields, in the engine's order. */
const PROBE_FIELDS = PROBE_TYPES.map(probeField);

/** A CEL string literal. */
export function celString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The effective value of a probe number: the field, or its API default when absent or 0. */
export function effective(probe: string, field: ProbeNumberField): string {
  return `(has(${probe}.${field}) && ${probe}.${field} != 0 ? ${probe}.${field} : ${PROBE_DEFAULTS[field]})`;
}

/** `a` and `b` are CEL ints: the larger. */
export function greatest(a: string, b: string): string {
  return `(${a} > ${b} ? ${a} : ${b})`;
}

/**
 * CEL has no `let` here (no cel.bind in the API server's environment): a one-element list mapped
 * through `name` binds it. `body` must not itself be a list it would flatten (it is wrapped).
 */
export function bind(name: string, value: string, body: string): string {
  return `[${value}].map(${name}, ${body})[0]`;
}

/**
 * The problems of every probe of container `c`: `problem(probe, field)` is CEL for a list of
 * strings about one probe (bound to the variable `probe` names), field its name; the lists are joined.
 */
export function eachProbe(problem: (probe: string, field: string) => string, container = 'c'): string {
  return PROBE_FIELDS.map((field) => `(has(${container}.${field}) ? ${bind('p', `${container}.${field}`, `(${problem('p', field)})`)} : [])`).join(' + ');
}

/** A rule option from the policy's parameters (a ConfigMap, so strings), else its default. */
export function intOption(rule: string, option: string, fallback: number): string {
  return `int(params.data[?${celString(`${rule}.${option}`)}].orValue(${celString(String(fallback))}))`;
}

/** `"16 × 10 s = 160 s"` for CEL ints, as the engine's `product` writes it. */
export function productText(count: string, seconds: string): string {
  return `string(${count}) + ' × ' + string(${seconds}) + ' s = ' + string(${count} * ${seconds}) + ' s'`;
}

/**
 * The port a probe's handler reaches, as a string: a number as it is, a name resolved through the
 * container's ports (the kubelet's lookup), an undeclared name as the name.
 */
export function resolvedPort(port: string, container = 'c'): string {
  const declared = `(has(${container}.ports) ? ${container}.ports.filter(x, has(x.name) && x.name == ${port}) : [])`;
  return `(type(${port}) == string ? ${bind('dp', declared, `size(dp) > 0 ? string(dp[0].containerPort) : string(${port})`)} : string(${port}))`;
}

/** A CEL string literal as written by celString: its text, or undefined for any other expression. */
function literalText(expression: string): string | undefined {
  const match = /^'((?:[^'\\]|\\.)*)'$/.exec(expression);
  return match === null ? undefined : match[1]!.replace(/\\(.)/g, '$1');
}

/**
 * CEL for a message's text, made from its template: each `{name}` is `data[name]`, a CEL expression of
 * a string or an int (a string literal is written into the text). A placeholder without data throws:
 * the template is the one source of the words, and the CEL cannot fall out of step with it.
 */
export function celMessage(template: string, data: Readonly<Record<string, string>> = {}): string {
  const parts = template.split(/\{(\w+)\}/);
  const pieces: string[] = [];
  let text = parts[0]!;
  for (let index = 1; index < parts.length; index += 2) {
    const name = parts[index]!;
    const value = data[name];
    if (value === undefined) throw new Error(`the CEL of message "${template}" gives no data for {${name}}`);
    const literal = literalText(value);
    if (literal !== undefined) text += literal;
    else {
      if (text !== '') pieces.push(celString(text));
      pieces.push(`string(${value})`);
      text = '';
    }
    text += parts[index + 1]!;
  }
  if (text !== '' || pieces.length === 0) pieces.push(celString(text));
  return pieces.join(' + ');
}

/** A rule's option from the policy's parameters, else the default the rule's metadata gives it: neither is written twice. */
export function ruleOption<Options>(meta: { id: string; options?: { defaults: Options } }, name: keyof Options & string): string {
  const fallback = meta.options?.defaults[name];
  if (typeof fallback !== 'number') throw new Error(`${meta.id} has no number option ${name}`);
  return intOption(meta.id, name, fallback);
}
