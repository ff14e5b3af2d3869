/**
 * The composition root's core: every long-lived part but HTTP, built here and nowhere else. The
 * stores (with their preparation), the signing keys, the BCrypt pool, the client authenticator,
 * the revocation list, the token signer and verifiers (the resource server's cached one too), the
 * login throttle, and the actors over them; closed in reverse. `npm start` puts HTTP on top of it
 * (`troupe.ts`), `npm run repl` a REPL.
 */
import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { ConfigError, DEV_CLIENT_SECRET_HASH, type Config } from '../config.ts';
import { readInitialData } from './initial-data.ts';
import { prepare } from './preparation.ts';
import type { Logger } from '../logger.ts';
import { createClientAuthenticator, type ClientAuthenticator } from '../security/clients.ts';
import { registeredClients } from './clients.ts';
import { weakClientSecrets } from '../security/client-secret-strength.ts';
import type { KeyRing } from '../security/key-ring.ts';
import { createLoginThrottle, type LoginThrottle } from '../security/login-throttle.ts';
import { createPasswordHasher, type PasswordHasher } from '../security/passwords.ts';
import { purgeHourly } from '../security/purge-schedule.ts';
import { withCanonicalUniqueness } from '../security/usernames.ts';
import { refuseClientAccounts, refuseSubjectClashes } from './subject-clashes.ts';
import type { CachedVerifier } from '../security/token-cache.ts';
import { createUnknownAccountHash, type UnknownAccountHash } from '../security/unknown-account-hash.ts';
import { createPasswordRehash, type PasswordRehash } from '../security/password-rehash.ts';
import type { Stores } from '../stores/stores.ts';
import type { AccountStore } from '../stores/account-store.ts';
import { refuseDevelopmentAccounts } from './development-accounts.ts';
import { openConfiguredStores } from './stores.ts';
import { PRIVATE_DIR } from '../stores/sqlite.ts';
import { startActors, type ActorDeps, type Actors } from './actors.ts';
import { openIdTokenKeyRing, openKeyRing } from './keys.ts';
import { withDataDirIssuer } from './issuer.ts';
import { loginActorDeps, type CoreOverrides } from './login-actors.ts';
import { causeOf } from '../stores/store-unavailable.ts';
import { tracingEnabled } from '../telemetry/tracing.ts';
import { tracedHasher, tracedStores } from './traced.ts';

/** The stores with the actors running over them. */
export interface Core {
  /** The configuration as served: the issuer the data directory keeps when none is configured. */
  readonly config: Config;
  readonly actors: Actors;
  /** The access-token keys. */
  readonly keys: KeyRing;
  /** The id_token keys (OpenID Connect): the id_token lineage of the set in the store. */
  readonly idTokenKeys: KeyRing;
  /**
   * The resource server's verifier, TokenActor's too (introspection): a token's verdict kept until
   * its `exp`, the signing keys and revocations checked on every hit.
   */
  readonly verifyBearer: CachedVerifier;
  /** Password logins and client authentications counted in the store, for every process alike. */
  readonly throttle: LoginThrottle;
  /** Checks a client's credentials (BCrypt on the pool, a secret that matched once kept by its hash). */
  readonly authenticateClient: ClientAuthenticator;
  /** Resolves when every store answers and the signing-key set can be used; rejects naming what does not. */
  ready(): Promise<void>;
  /** Stops the actors (bottom-up), then closes the stores and the password workers. */
  close(): Promise<void>;
}

/** The configured stores, each call a span while tracing is on. */
function openStores(config: Config): Stores {
  const stores = openConfiguredStores(config);
  return tracingEnabled() ? tracedStores(stores) : stores;
}

/** The token actor's dependencies: signing key, password hashing, the client, the revocation list. */
async function tokenDeps(
  config: Config,
  logger: Logger,
  stores: Stores,
  throttle: LoginThrottle,
  passwords: PasswordHasher,
): Promise<
  ActorDeps['token'] & {
    readonly keys: KeyRing;
    readonly idTokenKeys: KeyRing;
    readonly unknownAccount: UnknownAccountHash;
    readonly passwordRehash: PasswordRehash;
    readonly accountActor: ActorDeps['accounts'];
    readonly authenticateClient: ClientAuthenticator;
  }
> {
  const keys = await openKeyRing(config, stores.keys.access, logger);
  const idTokenKeys = await openIdTokenKeyRing(config, stores.keys.id_token, logger);
  const cost = config.security.password.bcryptCost;
  // The unknown-account comparison costs what most stored accounts' do, so the two take the same time.
  const unknownAccount = await createUnknownAccountHash({
    accounts: stores.accounts,
    passwords,
    configuredCost: cost,
    onError: (error) =>
      logger.warn(
        { store: stores.kind, cause: causeOf(error) },
        'reading the cost of the stored password hashes failed',
      ),
  });
  // A login's password hashed again at the configured cost, so the stored costs (and times) converge.
  const passwordRehash = createPasswordRehash({
    accounts: stores.accounts,
    passwords,
    bcryptCost: cost,
    onError: (error, accountId) =>
      logger.warn(
        { store: stores.kind, account: accountId, cause: causeOf(error) },
        'hashing a password again at security.password.bcrypt-cost failed; the login went on',
      ),
  });
  const clients = registeredClients(config);
  // A client's right secret is never locked out, so a guessable one is refused before serving.
  const weak = await weakClientSecrets(clients, passwords, new Set([DEV_CLIENT_SECRET_HASH]));
  if (weak.length > 0) throw new ConfigError(weak.join('\n'));
  const settings = {
    issuer: config.security.jwt.issuer,
    audience: config.security.jwt.resourceIds,
    validity: config.security.jwt.accessTokenValidity,
  };
  const { token, accounts } = loginActorDeps({
    accounts: withCanonicalUniqueness(stores.accounts),
    refreshTokens: stores.refreshTokens,
    revocations: stores.revocations,
    codes: stores.codes,
    consents: stores.consents,
    tickets: stores.tickets,
    sessions: stores.sessions,
    sessionMaxAge: config.security.signIn.sessionMaxAgeSeconds,
    keys,
    idTokenKeys,
    settings,
    clients,
    passwords,
    bcryptCost: cost,
    productName: config.security.signIn.productName,
    dummyHash: unknownAccount.current,
    rehash: passwordRehash.afterMatch,
    throttle,
    refreshTokenValidity: config.security.jwt.refreshTokenValidity,
    maxLoginsPerAccount: config.security.jwt.maxLoginsPerUser,
    maxRevokedTokensPerLogin: config.security.jwt.maxRevokedTokensPerLogin,
    onAccountEvent: (event) => logger.info({ event: event.action, account: event }, `account event ${event.action}`),
    // A process on the same keys that names another issuer: both named, and the key that sets them.
    onForeignIssuer: (presented) =>
      logger.warn(
        { expected: settings.issuer, presented: presented ?? null, key: 'security.jwt.issuer' },
        'access token refused: it names another issuer than security.jwt.issuer',
      ),
  });
  return {
    ...token,
    keys,
    idTokenKeys,
    unknownAccount,
    passwordRehash,
    authenticateClient: createClientAuthenticator(clients, passwords),
    accountActor: accounts,
  };
}

/**
 * Resolves when the database answers and is prepared, and both lineages of the signing-key set in
 * it can be used; rejects naming what is not, and logs why a database does not answer (the key
 * rings log their own).
 */
async function ready(
  stores: Stores,
  rings: readonly KeyRing[],
  prepared: () => boolean,
  logger: Logger,
): Promise<void> {
  try {
    await stores.ping();
  } catch (error) {
    logger.warn({ store: stores.kind, cause: causeOf(error) }, 'readiness: the store does not answer');
    throw new Error(`store "${stores.kind}" does not answer: ${error instanceof Error ? error.message : 'error'}`, {
      cause: error,
    });
  }
  if (!prepared()) throw new Error(`store "${stores.kind}" answers, but is still being prepared`);
  try {
    for (const ring of rings) await ring.check();
  } catch (error) {
    throw new Error(`key store "${stores.kind}": ${error instanceof Error ? error.message : 'error'}`, {
      cause: error,
    });
  }
}

export async function startCore(loaded: Config, logger: Logger, overrides: CoreOverrides = {}): Promise<Core> {
  const config = withDataDirIssuer(loaded);
  // The data directory holds the SQLite files (every BCrypt hash, the signing-key set), or with
  // MongoDB an older version's generated key: created for the owner alone, before either is written.
  if (config.mongodb.uri === undefined || config.security.signingKey === undefined)
    mkdirSync(config.data.dir, { recursive: true, mode: PRIVATE_DIR });
  const initial = readInitialData(config.app.initialData);
  // One namespace of subjects: an account of the initial data named like a client is never seeded.
  refuseSubjectClashes(
    config,
    initial.users.map((u) => u.username),
    'app.initial-data',
  );
  const stores = openStores(config);
  const throttle = createLoginThrottle(config.security.loginThrottle, stores.throttle);
  // The BCrypt threads of all workers together stay within the cores.
  const pool = createPasswordHasher(Math.max(1, Math.floor(availableParallelism() / config.server.workers)));
  const passwords = tracingEnabled() ? tracedHasher(pool) : pool;
  // A refusal stops the start (or, when the store comes later, keeps the service from being ready).
  const guard = async (accounts: AccountStore): Promise<void> => {
    await refuseClientAccounts(config, accounts);
    if (config.production) await refuseDevelopmentAccounts(accounts, initial, passwords);
  };
  const preparation = await prepare(stores, initial, logger, guard, config.production).catch(async (error: unknown) => {
    await passwords.close();
    await stores.close();
    throw error;
  });
  // After the preparation: on MongoDB no store operation runs before it, the key set's included.
  // A key set that cannot be used stops the start (docs/security.md): what was opened is closed.
  const { keys, idTokenKeys, unknownAccount, passwordRehash, accountActor, authenticateClient, ...token } =
    await tokenDeps(config, logger, stores, throttle, passwords).catch(async (error: unknown) => {
      preparation.stop();
      await passwords.close();
      await stores.close();
      throw error;
    });
  const actors = startActors({
    logger,
    mailboxLimit: config.actors.mailboxLimit,
    token: overrides.signer ? { ...token, signAccessToken: overrides.signer(token.signAccessToken) } : token,
    accounts: accountActor,
    users: { store: stores.users, askTimeoutMs: config.actors.askTimeoutMs },
    activity: {
      store: stores.activity,
      idleMs: config.actors.activity.idleMs,
      maxLive: config.actors.activity.maxLive,
    },
    employees: config.services.has('employee') ? { store: stores.employees } : undefined,
  });
  // Ended counts are only clutter (an ended window counts from zero anyway): swept on the purges' schedule.
  const stopSweeping = purgeHourly(
    () => stores.throttle.purgeExpired(Date.now()),
    (error) => logger.warn({ err: error }, 'sweeping the login throttle failed'),
  );
  return {
    config,
    actors,
    keys,
    idTokenKeys,
    verifyBearer: token.verifyAccessToken,
    throttle,
    authenticateClient,
    ready: () => ready(stores, [keys, idTokenKeys], preparation.done, logger),
    async close() {
      stopSweeping();
      preparation.stop();
      actors.stop();
      await unknownAccount.settled();
      await passwordRehash.settled();
      await token.passwords.close();
      await stores.close();
    },
  };
}
