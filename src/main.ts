/**
 * `npm start`: serve all configured services until SIGTERM/SIGINT: in this process, or with
 * `server.workers` above 1 in that many worker processes on one port (this one their primary).
 */
// First: refuses an unsupported Node in one line before anything else runs.
import './supported-node.mjs';
import cluster from 'node:cluster';
import { runPrimary } from './cluster.ts';
import { configFromProcess, orExit } from './config.ts';
import { parseArgs, START_USAGE, UsageError } from './config/args.ts';
import { createLogger, logFormat } from './logger.ts';
import { checkSignInPages, startTroupe, type Troupe } from './composition/troupe.ts';
import { exitOnUnusableKeys } from './composition/keys.ts';
import { logConfiguration, startUpLogger } from './composition/start-up-lines.ts';
import { shutdownTracing } from './telemetry/tracing.ts';

function onSignals(starting: Promise<Troupe>, log: ReturnType<typeof createLogger>): void {
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    // A signal during the start stops the server once it has started (a start that fails exits by itself).
    // The spans still buffered are exported before the process ends (nothing to do when tracing is off).
    starting
      .then((troupe) => troupe.close())
      .then(shutdownTracing)
      .then(
        () => {
          // The last line: whoever reads the log knows the stop is complete, not cut short.
          log.info({ signal }, cluster.isWorker ? 'worker stopped' : 'troupe stopped');
          process.exit(0);
        },
        (error: unknown) => {
          log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  // Kept for the process's life: a repeated signal must not fall back to the default (exit at once).
  // Ctrl-C under `npm start` sends two SIGINTs, the terminal's and the one npm forwards.
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // A worker whose primary is gone (killed, say) has no one to restart it or to share its port: it stops.
  if (cluster.isWorker) process.once('disconnect', () => shutdown('disconnect'));
}

/** The command line: `--help` prints the usage, anything unreadable refuses with it (exit 2). */
function readArgs(args: readonly string[]): Readonly<Record<string, string>> {
  try {
    const parsed = parseArgs(args);
    if (!parsed.help) return parsed.properties;
    process.stdout.write(`${START_USAGE}\n`);
    process.exit(0);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n${START_USAGE}\n`);
    process.exit(2);
  }
}

const commandLine = readArgs(process.argv.slice(2));
const config = await orExit(() =>
  configFromProcess(process.env, {
    commandLine,
    // Only the primary speaks of the configuration: its workers read the same sources.
    onWarning: (message) => {
      if (cluster.isPrimary) process.stderr.write(`Warning: ${message}\n`);
    },
  }),
);
// Pretty lines at a terminal, JSON lines otherwise and always in production (src/logger.ts).
const logger = createLogger(config.logging.level, process.stdout, logFormat(config.production));
// Said whatever logging.level (but silent): what was read, and where it listens.
const said = startUpLogger(logger);
if (cluster.isPrimary) logConfiguration(said, config);
if (config.server.workers > 1 && cluster.isPrimary) {
  await orExit(() => checkSignInPages(config));
  runPrimary(config, said);
} else {
  const starting = orExit(() => startTroupe(config, logger).catch(exitOnUnusableKeys));
  // Handlers from the start on: a signal while the core starts (a worker's, as its primary stops
  // before it is ready) must stop it cleanly, not by node's default, and whoever waits for the line
  // below may signal at once.
  onSignals(starting, said);
  const troupe = await starting;
  said.info(
    { url: troupe.url, services: [...config.services], management: troupe.managementUrl },
    cluster.isWorker ? 'worker listening' : 'troupe listening',
  );
}
