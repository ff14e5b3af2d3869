/**
 * Prometheus metrics (prom-client): HTTP traffic, actor messages and their handling time, mailbox
 * depths, ask timeouts.
 * In a worker of several (`server.workers`), `/metrics` answers for the whole service: the worker
 * asks the primary, which sums every live worker's registry (`cluster-metrics.ts`). Actor gauges
 * carry the process id, so each process's actors stay apart.
 */
import cluster from 'node:cluster';
import { workerMetrics } from './cluster-metrics.ts';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { SeriesCounter, SeriesHistogram } from './metric-series.ts';
import { type ActorSystem, type AnyRef } from '../messaging/nact.ts';
import { actorTree, pathOf, type ActorInfo } from '../messaging/introspection.ts';
import { observe } from '../messaging/observers.ts';

export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: SeriesCounter<'method' | 'route' | 'status'>;
  readonly httpDuration: SeriesHistogram<'method' | 'route'>;
  readonly askTimeouts: SeriesCounter<'route'>;
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
  readonly handled: () => void;
  readonly failed: () => void;
  readonly duration: (seconds: number) => void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  /** A counter of this registry. */
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new SeriesCounter({ name, help, labelNames, registry });
  /** A histogram of this registry, its upper bounds `buckets` in seconds. */
  const histogram = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: readonly number[],
  ) => new SeriesHistogram({ name, help, labelNames, registry, buckets });
  const httpRequests = counter('http_requests_total', 'HTTP requests by route template and status', [
    'method',
    'route',
    'status',
  ]);
  const httpDuration = histogram(
    'http_request_duration_seconds',
    'HTTP request latency',
    ['method', 'route'],
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  const askTimeouts = counter(
    'actor_ask_timeouts_total',
    'Requests answered 503 because an actor did not reply in time',
    ['route'],
  );
  const messages = counter('actor_messages_total', 'Messages handled by actors, by outcome', ['actor', 'outcome']);
  const processing = histogram(
    'actor_message_duration_seconds',
    'Time an actor took to handle one message (its handler, awaited work included), by actor kind',
    ['actor'],
    [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  );
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
      // And per actor: nact keeps one path (and its parts) for an actor's life, so a message finds
      // its series without building the label again.
      const ofActor = new WeakMap<readonly string[], ActorSeries>();
      const seriesOf = (parts: readonly string[]): ActorSeries => {
        const actor = actorLabel(parts);
        let series = children.get(actor);
        if (!series)
          children.set(
            actor,
            (series = {
              handled: messages.series({ actor, outcome: 'handled' }),
              failed: messages.series({ actor, outcome: 'failed' }),
              duration: processing.series({ actor }),
            }),
          );
        ofActor.set(parts, series);
        return series;
      };
      observe(system, (parts, outcome, seconds) => {
        const series = ofActor.get(parts) ?? seriesOf(parts);
        series[outcome]();
        series.duration(seconds);
      });
    },
  };
}
