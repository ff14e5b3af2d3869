/**
 * The served troupe: the ports bound (requests held) → the data directory's issuer (`issuer.ts`) →
 * the core (`core.ts`: stores, security, actors) → metrics → Koa, serving what was held; the reverse on close.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type Koa from 'koa';
import { createApp, createManagementApp } from '../../http/app.ts';
import { loadSignInSite } from '../../http/oauth/pages/sign-in-site.ts';
import type { AppState } from '../../http/state.ts';
import { ConfigError, type Config } from '../config.ts';
import { urlOf } from '../listen-url.ts';
import type { Logger } from '../logger.ts';
import { firstPartyClientIds, registeredClients } from './clients.ts';
import { startCore } from './core.ts';
import { storeDataDirIssuer } from './issuer.ts';
import type { CoreOverrides } from './login-actors.ts';
import { createDrain } from './drain.ts';
import { createMetrics } from '../telemetry/metrics.ts';

export interface Troupe {
  /** The configuration as served (the issuer resolved: `issuer.ts`). */
  readonly config: Config;
  readonly server: Server;
  /** The Koa application (its routes: `routesOf(app)`). */
  readonly app: Koa<AppState>;
  /** `http://host:port` as actually bound. */
  readonly url: string;
  /** The management port's `http://host:port` when `management.port` is set: /health, /ready, /metrics. */
  readonly managementUrl: string | undefined;
  /**
   * Drains (`drain.ts`: new requests 503 for `server.drain-window-ms`, in-flight ones finish,
   * bounded by `server.shutdown-timeout-ms`; no connection reset), closes the listeners, stops the
   * actors, closes the stores.
   */
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
function listen(handler: RequestListener, config: Config, port: number, host: string): Server {
  const { requestTimeoutMs, headersTimeoutMs, keepAliveTimeoutMs } = config.server;
  const server = createServer(
    {
      requestTimeout: requestTimeoutMs,
      headersTimeout: headersTimeoutMs,
      keepAliveTimeout: keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(headersTimeoutMs / 4))),
    },
    handler,
  );
  server.listen(port, host);
  return server;
}

/**
 * A port that is taken or not ours to take is a matter of configuration: one line naming the key
 * (`server` for the main port, `management` for the management port).
 */
function cannotListen(
  error: unknown,
  host: string,
  port: number,
  key: 'server' | 'management',
): ConfigError | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${host}:${port}`;
  const env = key === 'server' ? ' (or PORT)' : '';
  if (code === 'EADDRINUSE')
    return new ConfigError(`Cannot listen on ${where}: the port is in use; choose another with ${key}.port${env}`);
  if (code === 'EACCES')
    return new ConfigError(`Cannot listen on ${where}: permission denied; choose another port with ${key}.port${env}`);
  if (code === 'EADDRNOTAVAIL')
    return new ConfigError(`Cannot listen on ${where}: no such local address; check ${key}.host`);
  return undefined;
}

/** Listens with `app` on `host:port`; resolves with the URL as bound, or rejects naming the key. */
async function serve(
  handler: RequestListener,
  config: Config,
  where: { host: string; port: number; key: 'server' | 'management' },
): Promise<{ server: Server; url: string }> {
  const server = listen(handler, config, where.port, where.host);
  await once(server, 'listening').catch((error: unknown) => {
    throw cannotListen(error, where.host, where.port, where.key) ?? error;
  });
  return { server, url: urlOf(server.address() as AddressInfo) };
}

/**
 * Reads the sign-in pages' files as a start would, for the primary of several workers, which
 * serves nothing itself: a broken theme then stops it once, rather than each worker in turn.
 */
export function checkSignInPages(config: Config): void {
  loadSignInSite(config.security.signIn);
}

/**
 * A listener that holds each request until {@link Held.open} hands it the application: the ports
 * are bound before the core is built, so that only a start that listens decides the issuer.
 */
interface Held {
  readonly listener: RequestListener;
  open(handler: RequestListener): void;
}

function heldUntilOpen(): Held {
  let handler: RequestListener | undefined;
  const waiting: [IncomingMessage, ServerResponse][] = [];
  return {
    listener: (req, res) => (handler ? handler(req, res) : void waiting.push([req, res])),
    open(ready) {
      handler = ready;
      for (const [req, res] of waiting.splice(0)) ready(req, res);
    },
  };
}

/** Awaited once the core is built, before the ports answer what they hold: a test's gate. */
export interface TroupeOverrides extends CoreOverrides {
  readonly beforeOpen?: ((servers: readonly Server[]) => Promise<void>) | undefined;
}

export async function startTroupe(loaded: Config, logger: Logger, overrides?: TroupeOverrides): Promise<Troupe> {
  // First: a theme file that does not parse stops the start before anything is opened.
  const signIn = loadSignInSite(loaded.security.signIn);
  const main = heldUntilOpen();
  const side = heldUntilOpen();
  // Before the first connection: the drain counts every connection from it on.
  const drain = createDrain();
  const { server, url } = await serve(main.listener, loaded, { ...loaded.server, key: 'server' });
  drain.watch(server);
  // Second, so that the first address a worker reports to its primary is the main one.
  const { port: managementPort, host: managementHost } = loaded.management;
  const management =
    managementPort === undefined
      ? undefined
      : await serve(side.listener, loaded, { host: managementHost, port: managementPort, key: 'management' }).catch(
          async (error: unknown) => {
            await closeServer(server, 0);
            throw error;
          },
        );
  if (management) drain.watch(management.server);
  const listeners = management ? [server, management.server] : [server];
  // Listening: this start may decide the data directory's issuer, if none is yet (issuer.ts).
  const core = await Promise.resolve()
    .then(() => storeDataDirIssuer(loaded, logger))
    .then(() => startCore(loaded, logger, overrides))
    .catch(async (error: unknown) => {
      await Promise.all(listeners.map((listener) => closeServer(listener, 0)));
      throw error;
    });
  const { actors, config } = core;
  const metrics = createMetrics();
  metrics.watch(actors.system, [actors.activity]);
  const appDeps = {
    metrics,
    config,
    logger,
    refs: {
      token: actors.token,
      accounts: actors.accounts,
      users: actors.users,
      activity: actors.activity,
      employees: actors.employees,
    },
    verifyToken: core.verifyBearer,
    keys: core.keys,
    idTokenKeys: core.idTokenKeys,
    ready: core.ready,
    throttle: core.throttle,
    authenticateClient: core.authenticateClient,
    clients: registeredClients(config),
    firstParty: firstPartyClientIds(config),
    draining: drain.draining,
    signIn,
  };
  const app = createApp(appDeps);
  await overrides?.beforeOpen?.(listeners);
  main.open(drain.track(app.callback()));
  side.open(drain.track(createManagementApp(appDeps).callback()));
  return {
    config,
    server,
    url,
    managementUrl: management?.url,
    app,
    async close() {
      await drain.close(listeners, {
        windowMs: config.server.drainWindowMs,
        timeoutMs: config.server.shutdownTimeoutMs,
      });
      await core.close();
    },
  };
}
