/** The served troupe: the core (`core.ts`: stores, security, actors) → metrics → Koa → listen, and the reverse on close. */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import { createApp } from '../../http/app.ts';
import type { AppState } from '../../http/state.ts';
import { ConfigError, type Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { startCore } from './core.ts';
import { createMetrics } from '../metrics.ts';

export interface Troupe {
  readonly server: Server;
  /** The Koa application (its routes: `routesOf(app)`). */
  readonly app: Koa<AppState>;
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

/**
 * The HTTP server with bounds on slow clients: a request whose headers, or whose headers and body,
 * do not arrive in time is answered 408 and its connection closed (a dripping body is cut off).
 * Node checks these bounds periodically, every `connectionsCheckingInterval`: a fraction of them.
 */
function listen(app: Koa<AppState>, config: Config): Server {
  const { requestTimeoutMs, headersTimeoutMs, keepAliveTimeoutMs } = config.server;
  const server = createServer(
    {
      requestTimeout: requestTimeoutMs,
      headersTimeout: headersTimeoutMs,
      keepAliveTimeout: keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(headersTimeoutMs / 4))),
    },
    app.callback(),
  );
  server.listen(config.server.port, config.server.host);
  return server;
}

/** A port that is taken or not ours to take is a matter of configuration: one line naming the key. */
function cannotListen(error: unknown, config: Config): ConfigError | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${config.server.host}:${config.server.port}`;
  if (code === 'EADDRINUSE')
    return new ConfigError(`Cannot listen on ${where}: the port is in use; choose another with server.port (or PORT)`);
  if (code === 'EACCES')
    return new ConfigError(
      `Cannot listen on ${where}: permission denied; choose another port with server.port (or PORT)`,
    );
  if (code === 'EADDRNOTAVAIL')
    return new ConfigError(`Cannot listen on ${where}: no such local address; check server.host`);
  return undefined;
}

export async function startTroupe(config: Config, logger: Logger): Promise<Troupe> {
  const core = await startCore(config, logger);
  const { actors } = core;
  const metrics = createMetrics();
  metrics.watch(actors.system, [actors.activity]);
  const app = createApp({
    metrics,
    config,
    logger,
    refs: { token: actors.token, users: actors.users, activity: actors.activity, employee: actors.employee },
    verifyToken: core.verifyBearer,
    key: core.key,
    ready: core.ready,
    throttle: core.throttle,
  });
  const server = listen(app, config);
  await once(server, 'listening').catch((error: unknown) => {
    throw cannotListen(error, config) ?? error;
  });
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  return {
    server,
    url,
    app,
    async close() {
      await closeServer(server, config.server.shutdownTimeoutMs);
      await core.close();
    },
  };
}
