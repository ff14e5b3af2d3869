/** Prometheus metrics (prom-client): HTTP traffic, actor messages, mailbox depths, ask timeouts. */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { actorTree, observe, type ActorInfo, type ActorSystem } from './messaging/nact.ts';

export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly askTimeouts: Counter<'route'>;
  /** Counts the messages of the system's actors and reports their mailboxes. */
  watch(system: ActorSystem): void;
}

/** An actor's label: its name at the top level; children of one parent share `parent/*`. */
export const actorLabel = (parts: readonly string[]): string =>
  (parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join('/')}/*`);

function walk(nodes: readonly ActorInfo[], parents: readonly string[], visit: (parts: readonly string[], node: ActorInfo) => void): void {
  for (const node of nodes) {
    const parts = [...parents, node.name];
    visit(parts, node);
    walk(node.children, parts, visit);
  }
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpRequests = new Counter({ name: 'http_requests_total', help: 'HTTP requests by route template and status', labelNames: ['method', 'route', 'status'] as const, registers: [registry] });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds', help: 'HTTP request latency', labelNames: ['method', 'route'] as const, registers: [registry],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  const askTimeouts = new Counter({ name: 'actor_ask_timeouts_total', help: 'Requests answered 503 because an actor did not reply in time', labelNames: ['route'] as const, registers: [registry] });
  const messages = new Counter({ name: 'actor_messages_total', help: 'Messages handled by actors, by outcome', labelNames: ['actor', 'outcome'] as const, registers: [registry] });
  const systems: ActorSystem[] = [];
  new Gauge({
    name: 'actor_mailbox_depth', help: 'Messages waiting in actor mailboxes', labelNames: ['actor'] as const, registers: [registry],
    collect() {
      this.reset();
      for (const system of systems) walk(actorTree(system), [], (parts, node) => this.inc({ actor: actorLabel(parts) }, node.mailbox));
    },
  });
  new Gauge({
    name: 'actor_live', help: 'Live actors (for instance one ActivityActor per active user)', labelNames: ['actor'] as const, registers: [registry],
    collect() {
      this.reset();
      for (const system of systems) walk(actorTree(system), [], (parts) => this.inc({ actor: actorLabel(parts) }));
    },
  });
  return {
    registry, httpRequests, httpDuration, askTimeouts,
    watch(system) {
      systems.push(system);
      observe(system, (parts, outcome) => messages.inc({ actor: actorLabel(parts), outcome }));
    },
  };
}
