import type { Service } from 'kubernetes-types/core/v1.js';
import type { Resource } from '../model/resource.js';

/** Facts about the whole input that a rule may need, such as which Services select which pods. */
export interface RunFacts {
  services: readonly SelectingService[];
}

export interface SelectingService {
  name: string;
  namespace: string | undefined;
  selector: Record<string, string>;
}

export function collectRunFacts(resources: Iterable<Resource>): RunFacts {
  const services: SelectingService[] = [];
  for (const { object } of resources) {
    if (object.kind !== 'Service' || object.apiVersion !== 'v1') continue;
    const selector = (object as unknown as Service).spec?.selector;
    if (selector === undefined || selector === null || Object.keys(selector).length === 0) continue;
    services.push({ name: String(object.metadata?.name ?? ''), namespace: object.metadata?.namespace, selector });
  }
  return { services };
}

/** Services in the same namespace whose selector matches the pod's labels (an unset namespace matches an unset one). */
export function servicesSelecting(run: RunFacts, namespace: string | undefined, labels: Record<string, string> | undefined): SelectingService[] {
  if (labels === undefined) return [];
  return run.services.filter(
    (service) =>
      (service.namespace ?? 'default') === (namespace ?? 'default') &&
      Object.entries(service.selector).every(([key, value]) => labels[key] === String(value)),
  );
}
