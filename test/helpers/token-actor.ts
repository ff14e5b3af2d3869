/** A TokenActor on an in-memory SQLite database with the repository's initial data, for actor tests. */
import { spawnTokenActor, type TokenActorDeps } from '../../actors/token/actor.ts';
import type { AccountEvent } from '../../actors/token/accounts.ts';
import type * as Token from '../../actors/token/protocol.ts';
import { DEV_CLIENT_SECRET_HASH } from '../../src/config.ts';
import { loadInitialData, readInitialData } from '../../src/initial-data.ts';
import type { ActorSystem, Ref } from '../../src/messaging/nact.ts';
import { replyThenResume } from '../../src/messaging/supervision.ts';
import { createClientAuthenticator, type Client } from '../../src/security/clients.ts';
import { createDenylist } from '../../src/security/denylist.ts';
import { createTokenSigner, createTokenVerifier, type TokenSettings } from '../../src/security/jwt.ts';
import { fixedKeyRing } from '../../src/security/key-ring.ts';
import { loadConfiguredKey } from '../../src/security/keys.ts';
import type { PasswordHasher } from '../../src/security/passwords.ts';
import { sqliteCredentialStore } from '../../src/stores/credential-store.sqlite.ts';
import type { RefreshTokenStore } from '../../src/stores/refresh-token-store.ts';
import { sqliteAuthorizationCodeStore } from '../../src/stores/authorization-code-store.sqlite.ts';
import { sqliteRefreshTokenStore } from '../../src/stores/refresh-token-store.sqlite.ts';
import { sqliteRevocationStore } from '../../src/stores/revocation-store.sqlite.ts';
import { openDatabase, type Db } from '../../src/stores/sqlite.ts';
import { createLoginThrottle, type LoginThrottle } from '../../src/security/login-throttle.ts';
import { sqliteLoginThrottleStore } from '../../src/stores/login-throttle-store.sqlite.ts';

export const SETTINGS: TokenSettings = { issuer: 'http://issuer.test', audience: 'troupe-api', validity: 3600 };
export const CLIENT: Client = {
  clientId: 'troupe-client',
  secretHash: DEV_CLIENT_SECRET_HASH,
  authMethod: 'client_secret_basic',
  grantTypes: ['password', 'refresh_token'],
  scopes: ['read', 'write'],
  redirectUris: [],
};

export interface TokenActorSetup {
  readonly token: Ref<Token.Command>;
  readonly db: Db;
  readonly verify: ReturnType<typeof createTokenVerifier>;
  /** The account events the actor logged, oldest first. */
  readonly events: AccountEvent[];
  /** The login throttle over the same database (what ClearLockout clears). */
  readonly throttle: LoginThrottle;
}

export async function startTokenActor(
  system: ActorSystem,
  options: {
    hasher: PasswordHasher;
    clients?: readonly Client[];
    now?: () => number;
    refreshTokenValidity?: number;
    maxLoginsPerUser?: number;
    maxRevokedTokensPerLogin?: number;
    /** A database file shared with other setups (other processes), instead of one in memory. */
    dataDir?: string;
    onCrash?: TokenActorDeps['onCrash'];
    /** Wraps the real refresh-token store, e.g. to let another process act between two of its calls. */
    refreshTokens?: (store: RefreshTokenStore) => RefreshTokenStore;
  },
): Promise<TokenActorSetup> {
  const db = openDatabase(options.dataDir ?? ':memory:', { synchronous: 'NORMAL' });
  const credentials = sqliteCredentialStore(db);
  await loadInitialData(credentials, readInitialData('data/initial-data.json'));
  const keys = fixedKeyRing(
    await loadConfiguredKey('a-test-signing-key-of-at-least-32-bytes!', 256, 'security.signing-key'),
    [],
  );
  const clients = options.clients ?? [CLIENT];
  const now = options.now;
  const denylist = createDenylist(sqliteRevocationStore(db), now && (() => Math.floor(now() / 1000)));
  const verify = createTokenVerifier(keys.verifying, SETTINGS, denylist.isRevoked);
  const events: AccountEvent[] = [];
  const throttle = createLoginThrottle(
    { maxFailuresPerUser: 3, maxFailuresPerAddress: 50, windowSeconds: 600 },
    sqliteLoginThrottleStore(db),
  );
  const deps: TokenActorDeps = {
    clients,
    authenticateClient: createClientAuthenticator(clients, options.hasher),
    credentials,
    refreshTokens: (options.refreshTokens ?? ((store) => store))(sqliteRefreshTokenStore(db)),
    codes: sqliteAuthorizationCodeStore(db),
    passwords: options.hasher,
    signAccessToken: createTokenSigner(keys.signing, SETTINGS),
    verifyAccessToken: verify,
    denylist,
    refreshTokenValidity: options.refreshTokenValidity ?? 600,
    accessTokenValidity: SETTINGS.validity,
    maxLoginsPerUser: options.maxLoginsPerUser ?? 100,
    maxRevokedTokensPerLogin: options.maxRevokedTokensPerLogin ?? 100,
    dummyHash: await options.hasher.hash('dummy', 10),
    bcryptCost: 4,
    clearLockout: (username) => throttle.clear(username),
    onAccountEvent: (event) => events.push(event),
    onCrash: options.onCrash ?? replyThenResume(() => {}),
    ...(options.now ? { now: options.now } : {}),
  };
  return { token: spawnTokenActor(system, deps), db, verify, events, throttle };
}
