import type { Service } from 'kubernetes-types/core/v1.js';
import { dirname } from 'node:path';
import type { LintDocument } from '../model/document.js';
import type { ResourceOrigin } from '../model/resource.js';

export interface SelectingService {
  name: string;
  namespace: string | undefined;
  selector: Record<string, string>;
  /** The container ports it sends to: `targetPort` (a number or a port name), else `port`. */
  targetPorts: (number | string)[];
  /**
   * Every port of it is for metrics: named so (`metrics`, `http-metrics`, `prometheus`…), or the one
   * the Service's `prometheus.io/port` annotation names. Prometheus scrapes a pod through it whether
   * or not the pod is Ready (its Kubernetes discovery lists not-ready endpoints too); no user traffic
   * waits on the pod's readiness there.
   */
  metricsOnly: boolean;
  /** What is deployed together with it (see deploymentScope). */
  scope: string;
}

/**
 * What is deployed together: the objects of one rendering (a chart with one values file, one
 * kustomization build), of one directory of plain manifests, or of the cluster (admission and
 * audit, where objects have no file). A Service of another overlay, chart or test data set in the
 * same repository does not select this one's pods.
 */
export function deploymentScope(origin: ResourceOrigin): string {
  if (origin.rendered !== undefined) return `${origin.rendered.from}\u0000${origin.rendered.root ?? '-'}\u0000${origin.rendered.values ?? ''}`;
  if (origin.file === undefined || origin.file === '-') return origin.file ?? '';
  return dirname(origin.file);
}

/** A question a rule asked of the facts, and how many Services answered it. */
export interface ServiceQuery {
  namespace: string | undefined;
  labels: Record<string, string> | undefined;
  origin: ResourceOrigin | undefined;
  answered: number;
}

/**
 * Facts about the whole input that a rule may need: which Services select which pods.
 * Services are indexed by namespace and by one of their selector pairs, so finding the
 * Services of a pod costs a few lookups, not a scan of every Service in the input.
 *
 * Services are only ever added, so an answer can only grow. The lint asks the facts as a unit's
 * files go by and keeps the questions asked of a document (recordQueries): the document's findings
 * stand unless a Service added later answers one of them differently (answersChanged). Every
 * question a rule can ask goes through servicesSelecting, which records it.
 */
export class RunFacts {
  private readonly byNamespaceAndPair = new Map<string, SelectingService[]>();
  private queries: ServiceQuery[] | undefined;
  private added = 0;

  constructor(services: readonly SelectingService[] = []) {
    for (const service of services) this.add(service);
  }

  /** How many Services were added: while it stays the same, so does every answer. */
  get servicesAdded(): number {
    return this.added;
  }

  add(service: SelectingService): void {
    this.added++;
    const [key, value] = Object.entries(service.selector)[0]!;
    const index = indexKey(service.namespace, key, String(value));
    const list = this.byNamespaceAndPair.get(index);
    if (list) list.push(service);
    else this.byNamespaceAndPair.set(index, [service]);
  }

  /** Adds the Services among a document's resources. */
  addServicesOf(document: LintDocument): void {
    for (const { object, origin } of document.resources) {
      // The kind first: most objects are no Service, and their scope would be worked out for nothing.
      if (object.kind !== 'Service') continue;
      const service = selectingService(object, deploymentScope(origin));
      if (service !== undefined) this.add(service);
    }
  }

  /**
   * Services in the same namespace whose selector matches the pod's labels (an unset namespace is
   * "default"), among those deployed together with `origin` when it is given.
   */
  servicesSelecting(namespace: string | undefined, labels: Record<string, string> | undefined, origin?: ResourceOrigin): SelectingService[] {
    const found = this.selecting(namespace, labels, origin);
    this.queries?.push({ namespace, labels, origin, answered: found.length });
    return found;
  }

  /** Records every question asked from now until stopRecording, in the list returned. */
  recordQueries(): readonly ServiceQuery[] {
    return (this.queries = []);
  }

  stopRecording(): void {
    this.queries = undefined;
  }

  /** Whether the Services known now answer any of these questions otherwise than when they were asked. */
  answersChanged(queries: readonly ServiceQuery[]): boolean {
    return queries.some((query) => this.selecting(query.namespace, query.labels, query.origin).length !== query.answered);
  }

  private selecting(namespace: string | undefined, labels: Record<string, string> | undefined, origin: ResourceOrigin | undefined): SelectingService[] {
    // Stryker disable next-line ConditionalExpression: no Service indexed is a shortcut (labels are null when written so).
    if (labels === undefined || labels === null || this.byNamespaceAndPair.size === 0) return [];
    const found: SelectingService[] = [];
    // The scope is worked out once a Service shares a label with the pod: most pods are asked about with none.
    let scope: string | undefined | null = null;
    for (const [key, value] of Object.entries(labels)) {
      const candidates = this.byNamespaceAndPair.get(indexKey(namespace, key, String(value)));
      if (candidates === undefined) continue;
      if (scope === null) scope = origin === undefined ? undefined : deploymentScope(origin);
      for (const service of candidates) {
        if (scope !== undefined && service.scope !== scope) continue;
        if (Object.entries(service.selector).every(([selectorKey, selectorValue]) => labels[selectorKey] === String(selectorValue))) found.push(service);
      }
    }
    return found;
  }
}

function indexKey(namespace: string | undefined, key: string, value: string): string {
  return `${namespace ?? 'default'}\u0000${key}\u0000${value}`;
}

/** The Services of the input, from the documents of the run. */
export function collectRunFacts(documents: readonly LintDocument[]): RunFacts {
  const facts = new RunFacts();
  for (const document of documents) facts.addServicesOf(document);
  return facts;
}

/**
 * A v1 Service with a non-empty selector of string values; anything else selects nothing: a Service
 * without a selector has its endpoints written by hand, and an ExternalName Service is a DNS alias
 * the endpoint controllers give no endpoints whatever its selector (they skip Type ExternalName).
 */
export function selectingService(object: { apiVersion: string; kind: string; metadata?: unknown; spec?: unknown }, scope = ''): SelectingService | undefined {
  if (object.kind !== 'Service' || object.apiVersion !== 'v1') return undefined;
  if ((object as unknown as Service).spec?.type === 'ExternalName') return undefined;
  const selector = (object as unknown as Service).spec?.selector;
  if (selector === null || typeof selector !== 'object' || Array.isArray(selector)) return undefined;
  const entries = Object.entries(selector);
  if (entries.length === 0 || entries.some(([, value]) => typeof value !== 'string')) return undefined;
  const metadata = (object.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  // Stryker disable next-line OptionalChaining: a Service without spec has no selector and was answered above.
  const ports = (object as unknown as Service).spec?.ports;
  // Stryker disable next-line ArrayDeclaration: a port that is no mapping has no targetPort, as the replacement's string has none.
  const targetPorts = (Array.isArray(ports) ? ports : []).flatMap((port) => {
    const target = (port as { targetPort?: unknown } | null)?.targetPort ?? (port as { port?: unknown } | null)?.port;
    return typeof target === 'number' || (typeof target === 'string' && target !== '') ? [/^\d+$/.test(String(target)) ? Number(target) : target] : [];
  });
  return {
    name: typeof metadata.name === 'string' ? metadata.name : '',
    namespace: typeof metadata.namespace === 'string' ? metadata.namespace : undefined,
    selector: Object.fromEntries(entries),
    targetPorts,
    metricsOnly: metricsOnly(Array.isArray(ports) ? ports : [], (object.metadata as { annotations?: unknown } | undefined)?.annotations),
    scope,
  };
}

/** Port names that say metrics, as charts and operators name them (`metrics`, `http-metrics`, `metrics-https`, `prometheus`, `prom`). */
const METRICS_NAME = /^(?:[a-z0-9-]*-)?(?:metrics|prometheus|prom)(?:-[a-z0-9-]*)?$/;

/** Whether each of a Service's ports is a metrics port, by its name or by the Service's `prometheus.io/port` annotation. */
function metricsOnly(ports: readonly unknown[], annotations: unknown): boolean {
  if (ports.length === 0) return false;
  const scraped = annotations !== null && typeof annotations === 'object' ? (annotations as Record<string, unknown>)['prometheus.io/port'] : undefined;
  return ports.every((entry) => {
    const port = (entry ?? {}) as { name?: unknown; port?: unknown; targetPort?: unknown };
    if (typeof port.name === 'string' && METRICS_NAME.test(port.name)) return true;
    return typeof scraped === 'string' && scraped !== '' && (String(port.port) === scraped || String(port.targetPort) === scraped);
  });
}
