/** Composition: config → stores → actors → Koa → listen, and the reverse on close. */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type Koa from 'koa';
import { createApp } from '../http/app.ts';
import type { AppState } from '../http/state.ts';
import type { Config } from './config.ts';
import { loadInitialData, readInitialData } from './initial-data.ts';
import type { Logger } from './logger.ts';
import { createClientAuthenticator, type Client } from './security/clients.ts';
import { createDenylist } from './security/denylist.ts';
import { createTokenSigner, createTokenVerifier } from './security/jwt.ts';
import { loadSigningKey } from './security/keys.ts';
import { cachedVerifier, TOKEN_CACHE_MAX } from './security/token-cache.ts';
import { costOf, createPasswordHasher } from './security/passwords.ts';
import { sqliteCredentialStore } from './stores/credential-store.sqlite.ts';
import { openMongoEmployeeStore } from './stores/employee-store.mongo.ts';
import { sqliteEmployeeStore } from './stores/employee-store.sqlite.ts';
import { sqliteRefreshTokenStore } from './stores/refresh-token-store.sqlite.ts';
import { sqliteRevocationStore } from './stores/revocation-store.sqlite.ts';
import { sqliteActivityStore } from './stores/activity-store.sqlite.ts';
import { sqliteUserStore } from './stores/user-store.sqlite.ts';
import { openDatabase, type Db } from './stores/sqlite.ts';
import type { EmployeeStore } from './stores/employee-store.ts';
import { startActors } from './system.ts';
import { createMetrics } from './metrics.ts';

export interface Troupe {
  readonly server: Server;
  /** The Koa application (its routes: `routesOf(app)`). */
  readonly app: Koa<AppState>;
  /** `http://host:port` as actually bound. */
  readonly url: string;
  /** Stops accepting, lets in-flight requests finish (bounded), stops the actors, closes the stores. */
  close(): Promise<void>;
}

function registeredClient(config: Config): Client {
  const jwt = config.security.jwt;
  return {
    clientId: jwt.clientId, secretHash: jwt.clientSecretHash, grantTypes: jwt.grantTypes,
    scopes: [jwt.scopeRead, jwt.scopeWrite], resourceIds: [jwt.resourceId],
  };
}

async function closeServer(server: Server, timeoutMs: number): Promise<void> {
  const closed = once(server, 'close');
  server.close();
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
  await closed;
  clearTimeout(timer);
}

/** MongoDB when `mongodb.uri` is set, else the embedded SQLite database; none when the service is off. */
function openEmployeeStore(config: Config, db: Db): EmployeeStore | undefined {
  if (!config.services.has('employee')) return undefined;
  return config.mongodb.uri ? openMongoEmployeeStore(config.mongodb.uri) : sqliteEmployeeStore(db);
}

export async function startTroupe(config: Config, logger: Logger): Promise<Troupe> {
  const db = openDatabase(config.data.dir, { synchronous: config.data.synchronous });
  const credentials = sqliteCredentialStore(db);
  const initial = readInitialData(config.app.initialData);
  loadInitialData(credentials, initial);
  const key = await loadSigningKey({ signingKey: config.security.signingKey, encodingStrength: config.security.encodingStrength, dataDir: config.data.dir },
    (path) => logger.warn({ path }, 'generated a development signing key; set security.signing-key in production'));
  const passwords = createPasswordHasher();
  const cost = costOf(initial.users[0]?.password ?? '') ?? 10;
  const dummyHash = await passwords.hash(randomBytes(16).toString('hex'), cost);
  const clients = [registeredClient(config)];
  const employees = openEmployeeStore(config, db);
  const settings = { issuer: config.security.jwt.issuer, audience: config.security.jwt.resourceId, validity: config.security.jwt.accessTokenValidity };
  const denylist = createDenylist(sqliteRevocationStore(db));
  const verifyToken = createTokenVerifier(key, settings, denylist.isRevoked);
  const actors = startActors({
    logger,
    mailboxLimit: config.actors.mailboxLimit,
    token: {
      clients, authenticateClient: createClientAuthenticator(clients, passwords), credentials, refreshTokens: sqliteRefreshTokenStore(db),
      passwords, signAccessToken: createTokenSigner(key, settings), verifyAccessToken: verifyToken, denylist,
      refreshTokenValidity: config.security.jwt.refreshTokenValidity, dummyHash,
    },
    users: { store: sqliteUserStore(db), askTimeoutMs: config.actors.askTimeoutMs },
    activity: { store: sqliteActivityStore(db), idleMs: config.activity.idleMs },
    employee: employees && { store: employees },
  });
  const metrics = createMetrics();
  metrics.watch(actors.system);
  const app = createApp({
    metrics,
    config, logger, refs: { token: actors.token, users: actors.users, activity: actors.activity, employee: actors.employee }, key,
    // The resource server sees each token many times; introspection above keeps the uncached verifier.
    verifyToken: cachedVerifier(verifyToken, { max: TOKEN_CACHE_MAX, isRevoked: denylist.isRevoked }),
    ready: async () => { db.prepare('select 1').get(); await employees?.ping(); },
  });
  const server = app.listen(config.server.port, config.server.host);
  await once(server, 'listening');
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  return {
    server, url, app,
    async close() {
      await closeServer(server, config.server.shutdownTimeoutMs);
      actors.stop();
      await employees?.close();
      await passwords.close();
      db.close();
    },
  };
}
