/**
 * `/metrics` in a worker of several (`server.workers`): the worker asks the primary, the primary asks
 * every live worker for its registry (as JSON) and sums them with prom-client's
 * `AggregatorRegistry.aggregate`. Written here rather than with prom-client's own cluster IPC
 * because that one waits for a worker that died mid-request (the scrape fails after 5 s) and sends
 * without a callback (a closed channel is an unhandled `error`): here a worker that dies, or does
 * not answer within `GATHER_MS`, is left out of the sum, and no send can throw.
 */
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';
import type { Logger } from '../logger.ts';

type Metric = MetricObjectWithValues<MetricValue<string>>;

const METRICS_REQUEST = 'troupe:metrics';
const METRICS_REPLY = 'troupe:metrics-reply';
const REGISTRY_REQUEST = 'troupe:registry';
const REGISTRY_REPLY = 'troupe:registry-reply';

/** How long the primary waits for the workers' registries before it answers with those that came. */
const GATHER_MS = 2000;
/** How long a worker waits for the primary's answer. */
const ASK_MS = 5000;

interface Tagged {
  readonly type: string;
  readonly id: number;
}
interface MetricsReply extends Tagged {
  readonly text?: string;
  readonly error?: string;
}
interface RegistryReply extends Tagged {
  readonly metrics: Metric[];
}

const tagged = (m: unknown, type: string): m is Tagged =>
  typeof m === 'object' &&
  m !== null &&
  (m as { type?: unknown }).type === type &&
  typeof (m as { id?: unknown }).id === 'number';

/** A send that cannot throw or emit: a worker or primary whose channel closed just misses the message. */
function sendTo(target: Worker | NodeJS.Process, message: object): void {
  const connected = 'isConnected' in target ? target.isConnected() : target.connected;
  if (!connected) return;
  try {
    target.send?.(message, undefined, undefined, () => undefined);
  } catch {
    // the channel closed between the check and the send
  }
}

/** In a worker: answers the primary's requests for this registry; returns `text()` for `/metrics`. */
export function workerMetrics(registry: Registry): () => Promise<string> {
  const waiting = new Map<number, (reply: MetricsReply) => void>();
  let next = 0;
  process.on('message', (m: unknown) => {
    if (tagged(m, METRICS_REPLY)) waiting.get(m.id)?.(m as MetricsReply);
    else if (tagged(m, REGISTRY_REQUEST)) {
      const { id } = m;
      void registry.getMetricsAsJSON().then((metrics) => sendTo(process, { type: REGISTRY_REPLY, id, metrics }));
    }
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('the primary did not answer with the metrics'));
      }, ASK_MS);
      waiting.set(id, (reply) => {
        clearTimeout(timer);
        waiting.delete(id);
        if (reply.text === undefined) reject(new Error(reply.error ?? 'no metrics'));
        else resolve(reply.text);
      });
      sendTo(process, { type: METRICS_REQUEST, id });
    });
}

interface Gathering {
  readonly parts: Metric[][];
  readonly pending: Set<number>;
  readonly done: () => void;
}

/** In the primary: answers workers' requests with the sum of every live worker's registry. */
export function serveClusterMetrics(logger: Logger): void {
  const gatherings = new Map<number, Gathering>();
  let next = 0;
  const settle = (id: number, workerId: number, metrics?: Metric[]): void => {
    const g = gatherings.get(id);
    if (!g?.pending.delete(workerId)) return; // late, or from a worker not asked
    if (metrics) g.parts.push(metrics);
    if (g.pending.size === 0) g.done();
  };
  const gather = (): Promise<string> =>
    new Promise<Metric[][]>((resolve) => {
      const id = next++;
      const live = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w?.isConnected() === true);
      const parts: Metric[][] = [];
      const finish = (): void => {
        clearTimeout(timer);
        gatherings.delete(id);
        resolve(parts);
      };
      const timer = setTimeout(finish, GATHER_MS);
      gatherings.set(id, { parts, pending: new Set(live.map((w) => w.id)), done: finish });
      if (live.length === 0) return finish();
      for (const worker of live) sendTo(worker, { type: REGISTRY_REQUEST, id });
    }).then((parts) => AggregatorRegistry.aggregate(parts).metrics());

  cluster.on('message', (worker: Worker, m: unknown) => {
    if (tagged(m, REGISTRY_REPLY)) return settle(m.id, worker.id, (m as RegistryReply).metrics);
    if (!tagged(m, METRICS_REQUEST)) return;
    const { id } = m;
    gather().then(
      (text) => sendTo(worker, { type: METRICS_REPLY, id, text }),
      (error: unknown) => {
        logger.error({ err: error }, 'metrics could not be gathered');
        sendTo(worker, { type: METRICS_REPLY, id, error: 'the metrics could not be gathered' });
      },
    );
  });
  // A worker that died answers nothing: leave it out of every sum in progress.
  cluster.on('exit', (worker: Worker) => {
    for (const id of [...gatherings.keys()]) settle(id, worker.id);
  });
}
