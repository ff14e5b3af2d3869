/**
 * Prometheus metrics (prom-client): HTTP traffic, actor messages and their handling time, mailbox
 * depths, ask timeouts.
 * In a worker of several (`server.workers`), `/metrics` answers for the whole service: the worker
 * asks the primary, which sums every live worker's registry (`cluster-metrics.ts`). Actor gauges
 * carry the process id, so each process's actors stay apart.
 */
import cluster from 'node:cluster';
import { workerMetrics } from './cluster-metrics.ts';
import {
  Counter,
  Gauge,
  Histogram,
  Registry,
  type MetricType,
  collectDefaultMetrics,
  type MetricObjectWithValues,
  type MetricValueWithName,
} from 'prom-client';
import { type ActorSystem, type AnyRef } from './messaging/nact.ts';
import { actorTree, pathOf, type ActorInfo } from './messaging/introspection.ts';
import { observe } from './messaging/observers.ts';

export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly askTimeouts: Counter<'route'>;
  /**
   * Counts the messages of the system's actors and reports their mailboxes and how many are alive.
   * `pools` are actors whose children come and go (the activity router): their children's
   * `actor_live` series reads 0 while none is alive, rather than vanishing.
   */
  watch(system: ActorSystem, pools?: readonly AnyRef[]): void;
  /** The Prometheus text for the service: this process's, or every worker's when it is one of several. */
  text(): Promise<string>;
}

/** The label that the children of the actor at `parentParts` share: `parent/*`. */
const childrenLabel = (parentParts: readonly string[]): string => `${parentParts.join('/')}/*`;

/** An actor's label: its name at the top level; children of one parent share `parent/*`. */
export const actorLabel = (parts: readonly string[]): string =>
  parts.length <= 1 ? (parts[0] ?? '') : childrenLabel(parts.slice(0, -1));

function walk(
  nodes: readonly ActorInfo[],
  parents: readonly string[],
  visit: (parts: readonly string[], node: ActorInfo) => void,
): void {
  for (const node of nodes) {
    const parts = [...parents, node.name];
    visit(parts, node);
    walk(node.children, parts, visit);
  }
}

/** One actor kind's series: messages by outcome, and the time each took. */
interface ActorSeries {
  readonly handled: Counter.Internal;
  readonly failed: Counter.Internal;
  readonly duration: (seconds: number) => void;
}

const DURATION_NAME = 'actor_message_duration_seconds';
const DURATION_HELP = 'Time an actor took to handle one message (its handler, awaited work included), by actor kind';
const DURATION_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** Observations of one actor kind: a count per bucket (not cumulative), their sum and count. */
interface Durations {
  readonly counts: number[];
  sum: number;
  count: number;
}

/**
 * `actor_message_duration_seconds{actor}`, observed on every message an actor handles: an
 * observation is an array increment. prom-client's own `observe` validates and hashes the labels
 * on every call (about a microsecond), which is as much as the rest of a cached read's actor hop.
 * Read as an ordinary prom-client histogram (text, JSON, the workers' sum).
 */
class ActorDurations extends Histogram<'actor'> {
  readonly #series = new Map<string, Durations>();

  constructor(registry: Registry) {
    super({
      name: DURATION_NAME,
      help: DURATION_HELP,
      labelNames: ['actor'],
      registers: [registry],
      buckets: DURATION_BUCKETS,
    });
  }

  /** The observer of one actor kind's series. */
  series(actor: string): (seconds: number) => void {
    const durations: Durations = { counts: DURATION_BUCKETS.map(() => 0), sum: 0, count: 0 };
    this.#series.set(actor, durations);
    return (seconds) => {
      let i = 0;
      while (i < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[i] ?? Infinity)) i++;
      if (i < DURATION_BUCKETS.length) durations.counts[i] = (durations.counts[i] ?? 0) + 1;
      durations.sum += seconds;
      durations.count++;
    };
  }

  override async get(): Promise<MetricObjectWithValues<MetricValueWithName<'actor'>>> {
    const values: MetricValueWithName<'actor'>[] = [];
    for (const [actor, { counts, sum, count }] of this.#series) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += counts[i] ?? 0;
        const labels = { actor, le };
        values.push({ metricName: `${DURATION_NAME}_bucket`, labels, value: cumulative });
      });
      const inf = { actor, le: '+Inf' };
      values.push({ metricName: `${DURATION_NAME}_bucket`, labels: inf, value: count });
      values.push({ metricName: `${DURATION_NAME}_sum`, labels: { actor }, value: sum });
      values.push({ metricName: `${DURATION_NAME}_count`, labels: { actor }, value: count });
    }
    // prom-client's typings declare `type` as a numeric enum; its run time (the text format) reads the name.
    const type = 'histogram' as unknown as MetricType;
    return { name: DURATION_NAME, help: DURATION_HELP, type, aggregator: 'sum', collect: () => {}, values };
  }

  /** What the registry reads for the text format (prom-client calls it when a metric has it). */
  getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<'actor'>>> {
    return this.get();
  }
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route'] as const,
    registers: [registry],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  const askTimeouts = new Counter({
    name: 'actor_ask_timeouts_total',
    help: 'Requests answered 503 because an actor did not reply in time',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const messages = new Counter({
    name: 'actor_messages_total',
    help: 'Messages handled by actors, by outcome',
    labelNames: ['actor', 'outcome'] as const,
    registers: [registry],
  });
  const processing = new ActorDurations(registry);
  const systems: ActorSystem[] = [];
  const poolLabels = new Set<string>();
  const pid = String(process.pid);
  new Gauge({
    name: 'actor_mailbox_depth',
    help: 'Messages waiting in actor mailboxes, per process',
    labelNames: ['actor', 'pid'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const system of systems)
        walk(actorTree(system), [], (parts, node) => this.inc({ actor: actorLabel(parts), pid }, node.mailbox));
    },
  });
  new Gauge({
    name: 'actor_live',
    help: 'Live actors (for instance one ActivityActor per active user), per process',
    labelNames: ['actor', 'pid'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const actor of poolLabels) this.set({ actor, pid }, 0);
      for (const system of systems) walk(actorTree(system), [], (parts) => this.inc({ actor: actorLabel(parts), pid }));
    },
  });
  let text = (): Promise<string> => registry.metrics();
  if (cluster.isWorker) {
    text = workerMetrics(registry);
  }
  return {
    registry,
    httpRequests,
    httpDuration,
    askTimeouts,
    text,
    watch(system, pools = []) {
      systems.push(system);
      for (const pool of pools) poolLabels.add(childrenLabel(pathOf(pool)));
      // Label children cached per actor path (a bounded set: children of one parent share a label).
      const children = new Map<string, ActorSeries>();
      observe(system, (parts, outcome, seconds) => {
        const actor = actorLabel(parts);
        let series = children.get(actor);
        if (!series)
          children.set(
            actor,
            (series = {
              handled: messages.labels({ actor, outcome: 'handled' }),
              failed: messages.labels({ actor, outcome: 'failed' }),
              duration: processing.series(actor),
            }),
          );
        series[outcome].inc();
        series.duration(seconds);
      });
    },
  };
}
