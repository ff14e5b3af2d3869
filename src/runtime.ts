/**
 * The part of the composition that `npm start` and `npm run repl` share: SQLite (migrations) →
 * stores → actors, and the reverse on close. No HTTP here.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { Config } from './config.ts';
import { loadInitialData, readInitialData } from './initial-data.ts';
import type { Logger } from './logger.ts';
import { createClientAuthenticator, type Client } from './security/clients.ts';
import { createDenylist, type Revocable } from './security/denylist.ts';
import { createLoginThrottle, type LoginThrottle } from './security/login-throttle.ts';
import { sqliteLoginThrottleStore } from './stores/login-throttle-store.sqlite.ts';
import { createTokenSigner, createTokenVerifier, type TokenVerifier } from './security/jwt.ts';
import { loadSigningKey, type SigningKey } from './security/keys.ts';
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
import { startActors, type ActorDeps, type Actors } from './system.ts';

/** The stores with the actors running over them. */
export interface Runtime {
  readonly actors: Actors;
  readonly key: SigningKey;
  readonly verifyToken: TokenVerifier;
  /** Password logins and client authentications counted in the store, for every process alike. */
  readonly throttle: LoginThrottle;
  /** Whether an access token, or its login, was revoked. */
  readonly isRevoked: (token: Revocable) => boolean;
  /** Resolves when every store answers; rejects naming the one that does not. */
  ready(): Promise<void>;
  /** Stops the actors (bottom-up), then closes the stores and the password workers. */
  close(): Promise<void>;
}

function registeredClient(config: Config): Client {
  const jwt = config.security.jwt;
  return {
    clientId: jwt.clientId, secretHash: jwt.clientSecretHash, grantTypes: jwt.grantTypes,
    scopes: [jwt.scopeRead, jwt.scopeWrite], resourceIds: [jwt.resourceId],
  };
}

/** MongoDB when `mongodb.uri` is set, else the embedded SQLite database; none when the service is off. */
function openEmployeeStore(config: Config, db: Db): EmployeeStore | undefined {
  if (!config.services.has('employee')) return undefined;
  return config.mongodb.uri ? openMongoEmployeeStore(config.mongodb.uri) : sqliteEmployeeStore(db);
}

/** The token actor's dependencies: signing key, password hashing, the client, the revocation list. */
async function tokenDeps(config: Config, logger: Logger, db: Db): Promise<ActorDeps['token'] & { readonly key: SigningKey }> {
  const credentials = sqliteCredentialStore(db);
  const initial = readInitialData(config.app.initialData);
  loadInitialData(credentials, initial);
  const key = await loadSigningKey({ signingKey: config.security.signingKey, encodingStrength: config.security.encodingStrength, dataDir: config.data.dir },
    (path) => logger.warn({ path }, 'generated a development signing key; set security.signing-key in production'));
  // The BCrypt threads of all workers together stay within the cores.
  const passwords = createPasswordHasher(Math.max(1, Math.floor(availableParallelism() / config.server.workers)));
  const cost = costOf(initial.users[0]?.password ?? '') ?? 10;
  const dummyHash = await passwords.hash(randomBytes(16).toString('hex'), cost);
  const clients = [registeredClient(config)];
  const settings = { issuer: config.security.jwt.issuer, audience: config.security.jwt.resourceId, validity: config.security.jwt.accessTokenValidity };
  const denylist = createDenylist(sqliteRevocationStore(db));
  return {
    key, clients, authenticateClient: createClientAuthenticator(clients, passwords), credentials, refreshTokens: sqliteRefreshTokenStore(db),
    passwords, signAccessToken: createTokenSigner(key, settings), verifyAccessToken: createTokenVerifier(key, settings, denylist.isRevoked), denylist,
    refreshTokenValidity: config.security.jwt.refreshTokenValidity, accessTokenValidity: settings.validity, dummyHash,
  };
}

/** Pings every store in turn; the error names the first that does not answer. */
async function ready(db: Db, employees: EmployeeStore | undefined, employeeTech: string): Promise<void> {
  try {
    db.prepare('select 1').get();
  } catch (error) {
    throw new Error(`store "sqlite" does not answer: ${error instanceof Error ? error.message : 'error'}`, { cause: error });
  }
  try {
    await employees?.ping();
  } catch (error) {
    throw new Error(`store "employees" (${employeeTech}) does not answer: ${error instanceof Error ? error.message : 'error'}`, { cause: error });
  }
}

export async function startRuntime(config: Config, logger: Logger): Promise<Runtime> {
  const db = openDatabase(config.data.dir, { synchronous: config.data.synchronous });
  const { key, ...token } = await tokenDeps(config, logger, db);
  const employees = openEmployeeStore(config, db);
  const actors = startActors({
    logger,
    mailboxLimit: config.actors.mailboxLimit,
    token,
    users: { store: sqliteUserStore(db), askTimeoutMs: config.actors.askTimeoutMs },
    activity: { store: sqliteActivityStore(db), idleMs: config.activity.idleMs },
    employee: employees && { store: employees },
  });
  const throttleStore = sqliteLoginThrottleStore(db);
  // Ended counts are only clutter (an ended window counts from zero anyway): swept hourly.
  const sweep = setInterval(() => { void throttleStore.purgeExpired(Date.now()).catch((error: unknown) => logger.warn({ err: error }, 'sweeping the login throttle failed')); }, 3_600_000).unref();
  return {
    actors, key, verifyToken: token.verifyAccessToken, isRevoked: token.denylist.isRevoked,
    throttle: createLoginThrottle(config.security.loginThrottle, throttleStore),
    ready: () => ready(db, employees, config.mongodb.uri ? 'MongoDB' : 'SQLite'),
    async close() {
      clearInterval(sweep);
      actors.stop();
      await employees?.close();
      await token.passwords.close();
      db.close();
    },
  };
}
