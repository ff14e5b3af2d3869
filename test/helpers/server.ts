/** A real troupe on an ephemeral port with a temporary data directory. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startTroupe, type Troupe } from '../../src/server.ts';

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

export async function startTestServer(properties: Record<string, string> = {}, dataDir = tempDir()): Promise<TestServer> {
  const config = loadConfig({
    properties: { 'data.dir': dataDir, 'server.port': '0', 'logging.level': 'silent', 'data.sqlite.synchronous': 'NORMAL', ...properties },
  });
  const troupe = await startTroupe(config, createLogger(config.logging.level));
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await troupe.close();
  };
  return {
    url: troupe.url, config, dataDir, troupe, stop,
    async close() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
