/**
 * `server.workers` above 1: this process is the primary of a node:cluster. It forks the workers
 * (each a whole troupe: stores, actors, HTTP on the shared port), restarts one that dies within a
 * restart budget (past it, the primary stops the rest and exits 1), answers workers' requests for
 * the service's metrics, and on SIGTERM/SIGINT lets every worker drain and exits 0 once all have.
 * The primary itself opens no store.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import { serveClusterMetrics } from './telemetry/cluster-metrics.ts';
import { urlOf } from './listen-url.ts';
import { defaultBudget, type RestartBudget } from './messaging/supervision.ts';

export interface PrimaryOptions {
  /** Restarts allowed within a window before the primary gives up (default: the actors' budget). */
  readonly budget?: RestartBudget;
}

export function runPrimary(config: Config, logger: Logger, options: PrimaryOptions = {}): void {
  const budget = options.budget ?? defaultBudget;
  const wanted = config.server.workers;
  let restarts: number[] = [];
  let stopping = false;
  /** What the primary exits with once every worker has stopped: 1 when it gave up on them. */
  let outcome = 0;
  let announced = false;
  const listening = new Set<number>();

  serveClusterMetrics(logger);
  // Each worker accepts its own connections (see docs/several-processes.md): with round-robin the
  // primary accepts and hands a connection over IPC, and one handed to a worker that dies before
  // taking it stays open in the primary for good, its client waiting forever.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  const fork = (): Worker => {
    const worker = cluster.fork();
    // A send on a channel that just closed is emitted here; unheard, it would end the primary.
    worker.on('error', (error: Error) => logger.warn({ pid: worker.process.pid, err: error }, 'worker channel error'));
    return worker;
  };

  cluster.on('listening', (worker, address) => {
    // A worker's first address is its main port; a second one is the management port.
    if (listening.has(worker.id)) return;
    listening.add(worker.id);
    if (!announced && listening.size >= wanted) {
      announced = true;
      logger.info({ url: urlOf(address), services: [...config.services], workers: wanted }, 'troupe listening');
    }
  });

  const stopAll = (signal: NodeJS.Signals): void => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };

  const finishWhenAllExited = (): void => {
    // A worker stays in cluster.workers until its channel has closed too, which can come after its
    // exit: counted by that list, the last exit could leave nothing to call this, and the primary
    // would end with an empty loop, exit 0 and no last line. A worker that has exited is dead.
    if (Object.values(cluster.workers ?? {}).some((worker) => worker !== undefined && !worker.isDead())) return;
    // The last line, as a single process's: every worker has stopped, and so does the primary.
    logger.info({ code: outcome, workers: wanted }, 'troupe stopped');
    process.exit(outcome);
  };

  cluster.on('exit', (worker, code, signal) => {
    listening.delete(worker.id);
    if (stopping) return finishWhenAllExited();
    const now = Date.now();
    restarts = [...restarts.filter((t) => now - t < budget.withinMs), now];
    if (restarts.length > budget.maxCrashes) {
      logger.fatal(
        { pid: worker.process.pid, code, signal, restarts: restarts.length, withinMs: budget.withinMs },
        'workers keep dying; stopping',
      );
      stopping = true;
      outcome = 1;
      stopAll('SIGTERM');
      return finishWhenAllExited();
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'worker died; starting another');
    fork();
  });

  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down every worker');
    stopAll('SIGTERM');
    // A worker bounds its own drain by server.shutdown-timeout-ms; this only catches one that hangs.
    setTimeout(() => {
      logger.error('workers did not stop in time');
      stopAll('SIGKILL');
      process.exit(1);
    }, config.server.shutdownTimeoutMs + 10_000).unref();
    finishWhenAllExited();
  };
  // Kept for the process's life, as in a single process (src/main.ts): Ctrl-C under npm is two SIGINTs.
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  for (let i = 0; i < wanted; i++) fork();
}
