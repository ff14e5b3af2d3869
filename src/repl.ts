/**
 * `npm run repl [-- --memory]`: the actor system on the configured stores (or, with `--memory`,
 * on a temporary data directory removed on exit, MongoDB or not), no HTTP port, and a Node REPL to
 * talk to it.
 * `.exit` or Ctrl-D lets asks between actors finish, stops the actors, closes the stores and ends
 * the process, whatever an evaluation left behind (the timer of an interrupted `await`).
 */
// First: refuses an unsupported Node in one line before anything else runs.
import './supported-node.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFromProcess, orExit, type Config } from './config.ts';
import { createLogger } from './logger.ts';
import { pendingAsks } from './messaging/introspection.ts';
import { pendingSessionAsks } from './repl/context.ts';
import { awaitAsksBetweenActors } from './repl/exit.ts';
import { replLogLines } from './repl/log-lines.ts';
import { openRepl } from './repl/session.ts';
import { replBanner } from './repl/banner.ts';
import { startCore } from './composition/core.ts';
import { exitOnUnusableKeys } from './composition/keys.ts';

const USAGE = 'usage: npm run repl [-- --memory]';

function readArgs(args: readonly string[]): { memory: boolean } {
  const unknown = args.filter((a) => a !== '--memory');
  if (unknown.length > 0) {
    process.stderr.write(`unknown argument ${unknown.join(' ')}\n${USAGE}\n`);
    process.exit(2);
  }
  return { memory: args.includes('--memory') };
}

const loadConfig = (overrides: Readonly<Record<string, string>> = {}): Promise<Config> =>
  orExit(() => configFromProcess({ ...process.env, ...overrides }));

/**
 * `--memory`: the data dir is temporary, and with it the key set (unless a key is configured).
 * Every store lives in that directory's SQLite file: a configured `mongodb.uri` is left alone, so
 * a session that keeps nothing never writes into the real database.
 */
const memoryConfig = (dataDir: string): Promise<Config> => loadConfig({ DATA_DIR: dataDir, MONGODB_URI: '' });

const { memory } = readArgs(process.argv.slice(2));
const memoryDir = memory ? mkdtempSync(join(tmpdir(), 'troupe-repl-')) : undefined;
const config = await (memoryDir === undefined ? loadConfig() : memoryConfig(memoryDir));
const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY) && !process.env['NODE_NO_READLINE'];
// Logs go to stderr, so they never mix with what the session prints: one short line each.
const logLines = replLogLines(process.stderr, process.stdout, terminal);
const logger = createLogger(config.logging.level, logLines.stream);
const core = await startCore(config, logger).catch(exitOnUnusableKeys);
const server = await openRepl({
  actors: core.actors,
  input: process.stdin,
  output: process.stdout,
  terminal,
  colors: terminal && process.stdout.hasColors(),
  historyFile: join(config.data.dir, 'repl_history'),
  banner: replBanner(config.data.dir, memory),
  keys: core.keys,
  idTokenKeys: core.idTokenKeys,
});
logLines.redraw = () => server.displayPrompt(true);
server.once('exit', () => {
  awaitAsksBetweenActors({
    pending: () => pendingAsks(core.actors.system),
    ownPending: pendingSessionAsks,
    timeoutMs: config.actors.askTimeoutMs,
    say: (line) => process.stdout.write(`${line}\n`),
  })
    .then(() => core.close())
    .then(
      () => {
        if (memoryDir) rmSync(memoryDir, { recursive: true, force: true });
      },
      (error: unknown) => {
        logger.error({ err: error }, 'closing the stores failed');
        process.exitCode = 1;
      },
    )
    // What an evaluation left running (a timer, an interrupted ask's deadline) would hold the process.
    .finally(() => process.exit());
});
process.once('SIGTERM', () => server.close());
