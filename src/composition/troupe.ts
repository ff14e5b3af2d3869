/** The served troupe: the core (`core.ts`: stores, security, actors) → metrics → Koa → listen, and the reverse on close. */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import { createApp, createManagementApp } from '../../http/app.ts';
import type { AppState } from '../../http/state.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { startCore } from './core.ts';
import { createMetrics } from '../metrics.ts';

export interface Troupe {
  readonly server: Server;
  /** The Koa application (its routes: `routesOf(app)`). */
  readonly app: Koa<AppState>;
  /** `http://host:port` as actually bound. */
  readonly url: string;
  /** The management port's `http://host:port` when `management.port` is set: /health, /ready, /metrics. */
  readonly managementUrl: string | undefined;
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
function listen(app: Koa<AppState>, config: Config, port: number, host: string): Server {
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
  server.listen(port, host);
  return server;
}

async function listening(server: Server): Promise<string> {
  await once(server, 'listening');
  const { address, port } = server.address() as AddressInfo;
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}

export async function startTroupe(config: Config, logger: Logger): Promise<Troupe> {
  const core = await startCore(config, logger);
  const { actors } = core;
  const metrics = createMetrics();
  metrics.watch(actors.system, [actors.activity]);
  const appDeps = {
    metrics,
    config,
    logger,
    refs: { token: actors.token, users: actors.users, activity: actors.activity, employee: actors.employee },
    verifyToken: core.verifyBearer,
    key: core.key,
    ready: core.ready,
    throttle: core.throttle,
  };
  const app = createApp(appDeps);
  const server = listen(app, config, config.server.port, config.server.host);
  const url = await listening(server);
  // Second, so that the first address a worker reports to its primary is the main one.
  const { port: managementPort, host: managementHost } = config.management;
  const management =
    managementPort === undefined
      ? undefined
      : listen(createManagementApp(appDeps), config, managementPort, managementHost);
  const managementUrl = management && (await listening(management));
  return {
    server,
    url,
    managementUrl,
    app,
    async close() {
      await Promise.all(
        [server, management].flatMap((s) => (s ? [closeServer(s, config.server.shutdownTimeoutMs)] : [])),
      );
      await core.close();
    },
  };
}
