// What every admission review records — its count, its latency, its findings — counted in plain
// numbers. A prom-client labelled child checks and hashes its labels on every call: at three to
// five calls a review, about 9 µs of the webhook's 180 (profiled under the bench's load; this and an
// async hook on every response were 12% of the throughput). prom-client still writes /metrics: it
// reads these numbers when scraped, so the exposition is its own.
import { Counter, type Metric, type Registry } from 'prom-client';

/** A value as prom-client's registry reads it from a histogram (its own types do not name this shape). */
interface HistogramValue {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName: string;
}

interface HistogramValues {
  name: string;
  help: string;
  type: 'histogram';
  aggregator: 'sum';
  values: HistogramValue[];
}

/** What was counted under one pair of label values. */
export interface TallySlot {
  readonly first: string;
  readonly second: string;
  count: number;
  /** The latency histogram's: the sum of the values observed, and how many fell in each bucket (not cumulative). */
  sum: number;
  buckets: number[] | undefined;
}

/** Counts by two label values, both from bounded sets (endpoint and decision; rule and severity). */
export class PairTally {
  readonly slots: TallySlot[] = [];
  private readonly byFirst = new Map<string, Map<string, TallySlot>>();

  /** Counts one more under (first, second), and returns its slot. */
  count(first: string, second: string): TallySlot {
    let inner = this.byFirst.get(first);
    if (inner === undefined) this.byFirst.set(first, (inner = new Map<string, TallySlot>()));
    let slot = inner.get(second);
    if (slot === undefined) {
      slot = { first, second, count: 0, sum: 0, buckets: undefined };
      inner.set(second, slot);
      this.slots.push(slot);
    }
    slot.count++;
    return slot;
  }

  /** A prom-client counter whose values are these counts, read when it is scraped. */
  counter(config: { name: string; help: string; labelNames: readonly [string, string]; registers: Registry[] }): Counter<string> {
    const slots = this.slots;
    const [first, second] = config.labelNames;
    return new Counter({
      ...config,
      labelNames: [first, second],
      collect(this: Counter<string>) {
        this.reset();
        for (const slot of slots) this.inc({ [first]: slot.first, [second]: slot.second }, slot.count);
      },
    });
  }
}

/**
 * A histogram over a tally's slots, exposed by the registry as prom-client's Histogram is (the same
 * text, checked by a test against one fed the same values): buckets counted in the slots.
 */
export class LatencyHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly upperBounds: readonly number[];
  private readonly labelNames: readonly [string, string];

  constructor(
    private readonly tally: PairTally,
    config: { name: string; help: string; labelNames: readonly [string, string]; buckets: readonly number[]; registry: Registry },
  ) {
    this.name = config.name;
    this.help = config.help;
    this.upperBounds = config.buckets;
    this.labelNames = config.labelNames;
    config.registry.registerMetric(this as unknown as Metric);
  }

  /** Adds a value to the slot the review was just counted in (its count is the tally's). */
  observe(slot: TallySlot, value: number): void {
    const buckets = (slot.buckets ??= new Array<number>(this.upperBounds.length).fill(0));
    slot.sum += value;
    for (let bucket = 0; bucket < this.upperBounds.length; bucket++) {
      if (value <= this.upperBounds[bucket]!) {
        buckets[bucket]!++;
        return;
      }
    }
  }

  /** Zeroes every value, the tally's counts with them (the registry's resetMetrics; the webhook never calls it). */
  reset(): void {
    for (const slot of this.tally.slots) {
      slot.count = 0;
      slot.sum = 0;
      slot.buckets = undefined;
    }
  }

  /** What the registry writes as text: `le` the labels, the slot's two the shared labels, as prom-client's Histogram gives them. */
  getForPromString(): HistogramValues {
    const values: HistogramValue[] = [];
    const [first, second] = this.labelNames;
    for (const slot of this.tally.slots) {
      if (slot.buckets === undefined) continue;
      const sharedLabels = { [first]: slot.first, [second]: slot.second };
      let cumulative = 0;
      this.upperBounds.forEach((le, index) => {
        cumulative += slot.buckets![index]!;
        values.push({ labels: { le }, sharedLabels, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push(
        { labels: { le: '+Inf' }, sharedLabels, value: slot.count, metricName: `${this.name}_bucket` },
        { labels: {}, sharedLabels, value: slot.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels, value: slot.count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The same as JSON (getMetricsAsJSON): the shared labels merged into each value's. */
  get(): HistogramValues {
    const text = this.getForPromString();
    return { ...text, values: text.values.map(({ sharedLabels, labels, ...value }) => ({ ...value, labels: { ...labels, ...sharedLabels } })) };
  }
}
