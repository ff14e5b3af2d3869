/** Composition: config → runtime (stores → actors, `src/runtime.ts`) → Koa → listen, and the reverse on close. */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApp } from '../http/app.ts';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import { startRuntime } from './runtime.ts';
import { createMetrics } from './metrics.ts';

export interface Troupe {
  readonly server: Server;
  /** `http://host:port` as actually bound. */
  readonly url: string;
  /** Stops accepting, lets in-flight requests finish (bounded), stops the actors, closes the stores. */
  close(): Promise<void>;
}

async function closeServer(server: Server, timeoutMs: number): Promise<void> {
  const closed = once(server, 'close');
  server.close();
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
  await closed;
  clearTimeout(timer);
}

export async function startTroupe(config: Config, logger: Logger): Promise<Troupe> {
  const runtime = await startRuntime(config, logger);
  const { actors } = runtime;
  const metrics = createMetrics();
  metrics.watch(actors.system);
  const app = createApp({
    metrics,
    config, logger, refs: { token: actors.token, users: actors.users, activity: actors.activity, employee: actors.employee },
    verifyToken: runtime.verifyToken, key: runtime.key, ready: runtime.ready,
  });
  const server = app.listen(config.server.port, config.server.host);
  await once(server, 'listening');
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  return {
    server, url,
    async close() {
      await closeServer(server, config.server.shutdownTimeoutMs);
      await runtime.close();
    },
  };
}
