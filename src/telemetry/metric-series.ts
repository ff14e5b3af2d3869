/**
 * prom-client metrics whose label sets are resolved once, not on every observation. prom-client's
 * `labels(...)` children still validate and hash their labels on every `inc`/`observe` (about a
 * microsecond each, and a request makes three or four), which is as much as the rest of a cached
 * read's actor hop. Here a label set is looked up once and kept by its caller (a route, an actor);
 * an observation is then an array increment. The registry reads them as ordinary prom-client
 * metrics (text, JSON, the workers' sum in `cluster-metrics.ts`).
 */
import {
  Counter,
  Histogram,
  type MetricObjectWithValues,
  type MetricType,
  type MetricValueWithName,
  type Registry,
} from 'prom-client';

type Labels<L extends string> = Readonly<Record<L, string>>;

interface Config<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  readonly registry: Registry;
}

/** prom-client's typings declare `type` as a numeric enum; its run time (the text format) reads the name. */
const typeNamed = (name: 'counter' | 'histogram'): MetricType => name as unknown as MetricType;

/** One label set's observations: a count per bucket (not cumulative), their sum and count. */
interface Observations<L extends string> {
  readonly labels: Labels<L>;
  readonly counts: number[];
  sum: number;
  count: number;
}

/** A histogram whose series are resolved once: `series(labels)` returns the observer of that set. */
export class SeriesHistogram<L extends string> extends Histogram<L> {
  readonly #name: string;
  readonly #help: string;
  readonly #buckets: readonly number[];
  readonly #series = new Map<string, Observations<L>>();

  constructor(config: Config<L> & { readonly buckets: readonly number[] }) {
    super({
      name: config.name,
      help: config.help,
      labelNames: config.labelNames,
      registers: [config.registry],
      buckets: [...config.buckets],
    });
    this.#name = config.name;
    this.#help = config.help;
    this.#buckets = config.buckets;
  }

  /** The observer (seconds, or whatever the buckets measure) of one label set; the same set shares one series. */
  series(labels: Labels<L>): (value: number) => void {
    const key = JSON.stringify(labels);
    let s = this.#series.get(key);
    if (!s)
      this.#series.set(key, (s = { labels: { ...labels }, counts: this.#buckets.map(() => 0), sum: 0, count: 0 }));
    const observations = s;
    const buckets = this.#buckets;
    return (value) => {
      let i = 0;
      while (i < buckets.length && value > (buckets[i] ?? Infinity)) i++;
      if (i < buckets.length) observations.counts[i] = (observations.counts[i] ?? 0) + 1;
      observations.sum += value;
      observations.count++;
    };
  }

  override async get(): Promise<MetricObjectWithValues<MetricValueWithName<L>>> {
    const name = this.#name;
    const values: MetricValueWithName<L>[] = [];
    for (const { labels, counts, sum, count } of this.#series.values()) {
      let cumulative = 0;
      this.#buckets.forEach((le, i) => {
        cumulative += counts[i] ?? 0;
        values.push({ metricName: `${name}_bucket`, labels: { le, ...labels }, value: cumulative });
      });
      values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', ...labels }, value: count });
      values.push({ metricName: `${name}_sum`, labels, value: sum });
      values.push({ metricName: `${name}_count`, labels, value: count });
    }
    return { name, help: this.#help, type: typeNamed('histogram'), aggregator: 'sum', collect: () => {}, values };
  }

  /** What the registry reads for the text format (prom-client calls it when a metric has it). */
  getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<L>>> {
    return this.get();
  }
}

/** A counter whose series are resolved once: `series(labels)` returns the increment of that set. */
export class SeriesCounter<L extends string> extends Counter<L> {
  readonly #name: string;
  readonly #help: string;
  readonly #series = new Map<string, { readonly labels: Labels<L>; value: number }>();

  constructor(config: Config<L>) {
    super({ name: config.name, help: config.help, labelNames: config.labelNames, registers: [config.registry] });
    this.#name = config.name;
    this.#help = config.help;
  }

  /** The increment (by one) of one label set; the same set shares one series. */
  series(labels: Labels<L>): () => void {
    const key = JSON.stringify(labels);
    let s = this.#series.get(key);
    if (!s) this.#series.set(key, (s = { labels: { ...labels }, value: 0 }));
    const counted = s;
    return () => {
      counted.value++;
    };
  }

  override async get(): Promise<MetricObjectWithValues<MetricValueWithName<L>>> {
    const values = [...this.#series.values()].map(({ labels, value }) => ({ labels, value }));
    return {
      name: this.#name,
      help: this.#help,
      type: typeNamed('counter'),
      aggregator: 'sum',
      collect: () => {},
      values,
    };
  }

  getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<L>>> {
    return this.get();
  }
}
