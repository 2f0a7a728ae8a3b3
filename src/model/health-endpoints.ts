// Framework health endpoints that, by their own documentation, aggregate dependency checks (a
// database, a cache, a broker), beside the liveness endpoint the same framework documents. Only
// what the manifest shows is judged: the framework's default paths, or the paths its documented
// environment variables set on the container (a file inside the image is not seen).
import { trimTrailing } from './trim-trailing.js';

export type Framework = 'Spring Boot' | 'Quarkus' | 'Micronaut';

export interface HealthEndpoint {
  framework: Framework;
  /** In a few words, for the short message: "Spring Boot's aggregate health". */
  what: string;
  /** What it checks, for the long message. */
  checks: string;
  /** The framework's liveness endpoint under the same paths. */
  liveness: string;
}

export interface AggregateEndpoint extends HealthEndpoint {
  /** The environment variables that placed it, when not at the framework's default path. */
  configuredBy: string[];
}

/** A default path: `pattern` matches the path as written, query and fragment dropped (RE2 and JavaScript alike, for the CEL). */
export interface DefaultEndpoint extends HealthEndpoint {
  pattern: string;
  /** The framework's path variables: with any of them on the container, the default path is not assumed. */
  variables: readonly string[];
}

const SPRING: Omit<HealthEndpoint, 'liveness'> = {
  framework: 'Spring Boot',
  what: "Spring Boot's aggregate health",
  checks: 'the aggregate of every health indicator, each DataSource, Redis, a broker or Elasticsearch that Spring Boot finds among them',
};
const QUARKUS_ALL: Omit<HealthEndpoint, 'liveness'> = {
  framework: 'Quarkus',
  what: "Quarkus's health, readiness included",
  checks: 'every health check, the readiness checks included (the datasources, Kafka, Redis, MongoDB clients Quarkus adds)',
};
const QUARKUS_READY: Omit<HealthEndpoint, 'liveness'> = {
  framework: 'Quarkus',
  what: "Quarkus's readiness checks",
  checks: 'the readiness checks (the datasources, Kafka, Redis, MongoDB clients Quarkus adds)',
};
const MICRONAUT: Omit<HealthEndpoint, 'liveness'> = {
  framework: 'Micronaut',
  what: "Micronaut's readiness indicators",
  checks: "Micronaut's readiness endpoint: every health indicator not marked @Liveness, the JDBC connection pool's among them",
};

/** Spring Boot's relaxed-binding environment names that move the health endpoint ("Externalized Configuration", "Actuator"), and the switch of its default indicators. */
const SPRING_VARIABLES = [
  'MANAGEMENT_ENDPOINTS_WEB_BASE_PATH',
  'MANAGEMENT_ENDPOINTS_WEB_PATHMAPPING_HEALTH',
  'SERVER_SERVLET_CONTEXT_PATH',
  'SPRING_WEBFLUX_BASE_PATH',
  'MANAGEMENT_SERVER_BASE_PATH',
  'MANAGEMENT_SERVER_SERVLET_CONTEXT_PATH',
  'MANAGEMENT_HEALTH_DEFAULTS_ENABLED',
] as const;

/** Quarkus' environment names for the paths of SmallRye Health (its configuration reference). */
const QUARKUS_VARIABLES = [
  'QUARKUS_HTTP_ROOT_PATH',
  'QUARKUS_HTTP_NON_APPLICATION_ROOT_PATH',
  'QUARKUS_SMALLRYE_HEALTH_ROOT_PATH',
  'QUARKUS_SMALLRYE_HEALTH_READINESS_PATH',
  'QUARKUS_SMALLRYE_HEALTH_LIVENESS_PATH',
] as const;

/** Micronaut's environment names for the context path and the endpoints' base path. */
const MICRONAUT_VARIABLES = ['MICRONAUT_SERVER_CONTEXT_PATH', 'ENDPOINTS_ALL_PATH'] as const;

export const DEFAULT_ENDPOINTS: readonly DefaultEndpoint[] = [
  { ...SPRING, liveness: '/actuator/health/liveness', pattern: '^/*actuator/+health/*$', variables: SPRING_VARIABLES },
  { ...QUARKUS_ALL, liveness: '/q/health/live', pattern: '^/*q/+health/*$', variables: QUARKUS_VARIABLES },
  { ...QUARKUS_READY, liveness: '/q/health/live', pattern: '^/*q/+health/+ready/*$', variables: QUARKUS_VARIABLES },
  { ...MICRONAUT, liveness: '/health/liveness', pattern: '^/*health/+readiness/*$', variables: MICRONAUT_VARIABLES },
];

/** Each default endpoint's pattern, compiled once: this runs for every httpGet probe admitted. */
const DEFAULT_PATTERNS = new Map(DEFAULT_ENDPOINTS.map((endpoint) => [endpoint, new RegExp(endpoint.pattern)]));

/** The path without its query or fragment, as a router matches it. */
export function barePath(path: string): string {
  return path.split('?')[0]!.split('#')[0]!;
}

/** The path as the framework routes it: one leading slash, no repeated or trailing ones. */
function routedPath(path: string): string {
  const joined = `/${path}`.replace(/\/{2,}/g, '/');
  return joined.length > 1 ? trimTrailing(joined, '/') : joined;
}

/** Segments joined into one routed path, each with or without its slashes. */
function join(...parts: string[]): string {
  return routedPath(parts.filter((part) => part !== '').join('/'));
}

/**
 * The aggregate endpoint `path` requests, for a container with `env` (undefined values: set by
 * valueFrom); undefined when it is none, or when what decides it is known only in the cluster. A
 * framework's default path is judged first, then paths its variables set.
 */
export function aggregateEndpoint(path: string, env: ReadonlyMap<string, string | undefined>): AggregateEndpoint | undefined {
  const bare = barePath(path);
  for (const endpoint of DEFAULT_ENDPOINTS) {
    if (endpoint.variables.some((name) => env.has(name)) || !DEFAULT_PATTERNS.get(endpoint)!.test(bare)) continue;
    const { pattern: _pattern, variables: _variables, ...found } = endpoint;
    return { ...found, configuredBy: [] };
  }
  const requested = routedPath(bare);
  return spring(requested, env) ?? quarkus(requested, env) ?? micronaut(requested, env);
}

/** The framework's variables the container sets, or undefined when one of them comes from valueFrom. */
function literalVariables(names: readonly string[], env: ReadonlyMap<string, string | undefined>): Map<string, string> | undefined {
  const values = new Map<string, string>();
  for (const name of names) {
    if (!env.has(name)) continue;
    const value = env.get(name);
    if (value === undefined) return undefined;
    values.set(name, value);
  }
  return values;
}

/**
 * The container's env as Spring's relaxed binding reads it: a property's environment name is its
 * canonical form with dots as underscores and dashes dropped (SERVER_SERVLET_CONTEXTPATH), and the
 * form with the dash as an underscore (SERVER_SERVLET_CONTEXT_PATH) binds too. Each Spring name
 * here is found under either spelling, and keeps the name the container wrote.
 */
function springEnv(env: ReadonlyMap<string, string | undefined>): { values: Map<string, string | undefined>; written: Map<string, string> } {
  const bySquashed = new Map(SPRING_VARIABLES.map((name) => [name.replace(/_/g, ''), name]));
  const values = new Map<string, string | undefined>();
  const written = new Map<string, string>();
  for (const [name, value] of env) {
    const spring = bySquashed.get(name.replace(/_/g, ''));
    if (spring === undefined) continue;
    values.set(spring, value);
    written.set(spring, name);
  }
  return { values, written };
}

function spring(requested: string, env: ReadonlyMap<string, string | undefined>): AggregateEndpoint | undefined {
  const relaxed = springEnv(env);
  const set = literalVariables(SPRING_VARIABLES, relaxed.values);
  if (set === undefined || set.size === 0) return undefined;
  // With its default indicators off, the aggregate holds only the application's own.
  if (set.get('MANAGEMENT_HEALTH_DEFAULTS_ENABLED')?.toLowerCase() === 'false') return undefined;
  const base = set.get('MANAGEMENT_ENDPOINTS_WEB_BASE_PATH') ?? '/actuator';
  const health = set.get('MANAGEMENT_ENDPOINTS_WEB_PATHMAPPING_HEALTH') ?? 'health';
  // The actuator sits under the servlet context path (or WebFlux base path) on the main port, or
  // under the management server's own base path on a management port: either may be the probe's.
  const prefixes = [
    '',
    set.get('SERVER_SERVLET_CONTEXT_PATH'),
    set.get('SPRING_WEBFLUX_BASE_PATH'),
    set.get('MANAGEMENT_SERVER_BASE_PATH'),
    set.get('MANAGEMENT_SERVER_SERVLET_CONTEXT_PATH'),
  ];
  for (const prefix of prefixes) {
    if (prefix === undefined || requested !== join(prefix, base, health)) continue;
    return { ...SPRING, liveness: join(prefix, base, health, 'liveness'), configuredBy: [...set.keys()].map((name) => relaxed.written.get(name) ?? name) };
  }
  return undefined;
}

function quarkus(requested: string, env: ReadonlyMap<string, string | undefined>): AggregateEndpoint | undefined {
  const set = literalVariables(QUARKUS_VARIABLES, env);
  if (set === undefined || set.size === 0) return undefined;
  // Each path is relative to the one above it unless it starts with a slash (Quarkus' path resolution).
  const under = (parent: string, child: string) => (child.startsWith('/') ? routedPath(child) : join(parent, child));
  const nonApplication = under(set.get('QUARKUS_HTTP_ROOT_PATH') ?? '/', set.get('QUARKUS_HTTP_NON_APPLICATION_ROOT_PATH') ?? 'q');
  const health = under(nonApplication, set.get('QUARKUS_SMALLRYE_HEALTH_ROOT_PATH') ?? 'health');
  const readiness = under(health, set.get('QUARKUS_SMALLRYE_HEALTH_READINESS_PATH') ?? 'ready');
  const liveness = under(health, set.get('QUARKUS_SMALLRYE_HEALTH_LIVENESS_PATH') ?? 'live');
  const configuredBy = [...set.keys()];
  if (requested === health) return { ...QUARKUS_ALL, liveness, configuredBy };
  if (requested === readiness) return { ...QUARKUS_READY, liveness, configuredBy };
  return undefined;
}

function micronaut(requested: string, env: ReadonlyMap<string, string | undefined>): AggregateEndpoint | undefined {
  const set = literalVariables(MICRONAUT_VARIABLES, env);
  if (set === undefined || set.size === 0) return undefined;
  const base = join(set.get('MICRONAUT_SERVER_CONTEXT_PATH') ?? '', set.get('ENDPOINTS_ALL_PATH') ?? '/');
  if (requested !== join(base, 'health', 'readiness')) return undefined;
  return { ...MICRONAUT, liveness: join(base, 'health', 'liveness'), configuredBy: [...set.keys()] };
}
