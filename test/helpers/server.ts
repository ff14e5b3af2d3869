/** A real troupe on an ephemeral port with a temporary data directory. */
import { createWriteStream, mkdtempSync, rmSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite, type Test } from 'uvu';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startTroupe, type Troupe, type TroupeOverrides } from '../../src/composition/troupe.ts';

export interface TestServer {
  readonly url: string;
  readonly config: Config;
  readonly dataDir: string;
  readonly troupe: Troupe;
  /** Closes the server; the data directory is kept until {@link TestServer.cleanup}. */
  stop(): Promise<void>;
  /** Closes the server and removes its data directory. */
  close(): Promise<void>;
}

export function tempDir(prefix = 'troupe-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

let runLog: WriteStream | undefined;

/** The log file of the whole test run (`TROUPE_TEST_LOG`, set by scripts/test.mjs), if any. */
function testRunLog(): WriteStream | undefined {
  const path = process.env['TROUPE_TEST_LOG'];
  if (path && !runLog) runLog = createWriteStream(path, { flags: 'a' });
  return runLog;
}

/**
 * `logTo` receives the JSON log lines (use with a `logging.level` other than silent); `overrides`
 * wrap parts of the server, e.g. its signer to hold signatures at a gate, or hold its start.
 */
export async function startTestServer(
  properties: Record<string, string> = {},
  dataDir = tempDir(),
  logTo?: NodeJS.WritableStream,
  overrides?: TroupeOverrides,
): Promise<TestServer> {
  const sink = logTo ?? testRunLog();
  const config = loadConfig({
    properties: {
      'data.dir': dataDir,
      'server.port': '0',
      'logging.level': sink ? 'debug' : 'silent',
      'data.sqlite.synchronous': 'NORMAL',
      // No client here needs time to notice a stop: closing waits only for the requests in flight.
      'server.drain-window-ms': '0',
      ...properties,
    },
  });
  const troupe = await startTroupe(config, createLogger(config.logging.level, sink), overrides);
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await troupe.close();
  };
  return {
    url: troupe.url,
    config: troupe.config,
    dataDir,
    troupe,
    stop,
    async close() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A uvu suite with a server of its own: started with `properties` before its tests, closed after. */
export function serverSuite(name: string, properties: Record<string, string> = {}): Test<{ server: TestServer }> {
  const s = suite(name, {} as { server: TestServer });
  s.before(async (c) => {
    c.server = await startTestServer(properties);
  });
  s.after(async (c) => c.server?.close());
  return s;
}
