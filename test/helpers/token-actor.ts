/** A TokenActor on an in-memory SQLite database with the repository's initial data, for actor tests. */
import { spawnAccountActor } from '../../actors/accounts/actor.ts';
import type * as Accounts from '../../actors/accounts/protocol.ts';
import { spawnTokenActor, type TokenActorDeps } from '../../actors/token/actor.ts';
import type { AccountEvent } from '../../actors/accounts/administration.ts';
import type * as Token from '../../actors/token/protocol.ts';
import { DEV_CLIENT_SECRET_HASH } from '../../src/config.ts';
import { loadInitialData, readInitialData } from '../../src/composition/initial-data.ts';
import { rmSync } from 'node:fs';
import type { Test } from 'uvu';
import { startSystem, stopSystem, type ActorSystem, type Ref } from '../../src/messaging/nact.ts';
import { replyThenResume } from '../../src/messaging/supervision.ts';
import type { Client } from '../../src/security/clients.ts';
import type { TokenSettings, TokenSigner } from '../../src/security/jwt.ts';
import type { CachedVerifier } from '../../src/security/token-cache.ts';
import { fixedKeyRing } from '../../src/security/key-ring.ts';
import { generatePrivateKey, usableKey, type UsableKey } from '../../src/security/key-material.ts';
import { loadConfiguredKey } from '../../src/composition/configured-keys.ts';
import { createPasswordHasher, type PasswordHasher } from '../../src/security/passwords.ts';
import { createUnknownAccountHash, type UnknownAccountHash } from '../../src/security/unknown-account-hash.ts';
import { createPasswordRehash, type PasswordRehash } from '../../src/security/password-rehash.ts';
import { tempDir } from './server.ts';
import { askWithProbe } from './probe.ts';
import type { Request } from '../../src/messaging/ask.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import { loginActorDeps } from '../../src/composition/login-actors.ts';
import { sqliteAccountStore } from '../../src/stores/account-store.sqlite.ts';
import type { RefreshTokenStore } from '../../src/stores/refresh-token-store.ts';
import type { RevocationStore } from '../../src/stores/revocation-store.ts';
import type { AccountStore } from '../../src/stores/account-store.ts';
import { sqliteAuthorizationCodeStore } from '../../src/stores/authorization-code-store.sqlite.ts';
import { sqliteConsentStore } from '../../src/stores/consent-store.sqlite.ts';
import type { ConsentStore } from '../../src/stores/consent-store.ts';
import { sqliteSessionStore } from '../../src/stores/session-store.sqlite.ts';
import { sqliteConsentTicketStore } from '../../src/stores/consent-ticket-store.sqlite.ts';
import { sqliteRefreshTokenStore } from '../../src/stores/refresh-token-store.sqlite.ts';
import { sqliteRevocationStore } from '../../src/stores/revocation-store.sqlite.ts';
import { openDatabase, type Db } from '../../src/stores/sqlite.ts';
import { createLoginThrottle, type LoginThrottle } from '../../src/security/login-throttle.ts';
import { sqliteLoginThrottleStore } from '../../src/stores/login-throttle-store.sqlite.ts';

export const SETTINGS: TokenSettings = { issuer: 'http://issuer.test', audience: 'troupe-api', validity: 3600 };
/** The MAC key the actor signs with (`security.signing-key` of a server that is to accept its tokens). */
export const TEST_SIGNING_KEY = 'a-test-signing-key-of-at-least-32-bytes!';
export const CLIENT: Client = {
  clientId: 'troupe-client',
  secretHash: DEV_CLIENT_SECRET_HASH,
  authMethod: 'client_secret_basic',
  grantTypes: ['password', 'refresh_token'],
  scopes: ['read', 'write'],
  redirectUris: [],
  consent: 'implicit',
};

/** The id_token key of every actor suite's TokenActor: made once (an RSA key takes a while), RS256 as a server's first. */
let idTokenKey: Promise<UsableKey> | undefined;
export const ID_TOKEN_KEY = (): Promise<UsableKey> => (idTokenKey ??= usableKey(generatePrivateKey('RS256'), 'RS256'));

export interface TokenActorSetup {
  /** The actor system both actors run in (one per process a test stands for). */
  readonly system: ActorSystem;
  readonly token: Ref<Token.Command>;
  /** The AccountActor over the same stores and revocation list. */
  readonly accounts: Ref<Accounts.Command>;
  readonly db: Db;
  /** The process's verifier of access tokens (its cache is introspection's too). */
  readonly verify: CachedVerifier;
  /** The account events the actor logged, oldest first. */
  readonly events: AccountEvent[];
  /** The login throttle over the same database (what ClearLockout clears). */
  readonly throttle: LoginThrottle;
  /** What an unknown username's password is compared against (its first check of the store done). */
  readonly unknownAccount: UnknownAccountHash;
  /** The logins' rehashes at the configured cost, and those that failed. */
  readonly rehash: PasswordRehash & { readonly failures: unknown[] };
}

export async function startTokenActor(
  system: ActorSystem,
  options: {
    hasher: PasswordHasher;
    /** `security.password.bcrypt-cost`: 4 unless given (the initial data's hashes are at 10). */
    bcryptCost?: number;
    clients?: readonly Client[];
    now?: () => number;
    refreshTokenValidity?: number;
    maxLoginsPerAccount?: number;
    maxRevokedTokensPerLogin?: number;
    /** A database file shared with other setups (other processes), instead of one in memory. */
    dataDir?: string;
    onCrash?: TokenActorDeps['onCrash'];
    /** Wraps the real refresh-token store, e.g. to let another process act between two of its calls. */
    refreshTokens?: (store: RefreshTokenStore) => RefreshTokenStore;
    /** Wraps the real revocation store, e.g. to make it read other processes' entries late (as MongoDB may). */
    revocations?: (store: RevocationStore) => RevocationStore;
    /** Wraps the real account store the actor uses (the initial data is loaded through the real one). */
    accounts?: (store: AccountStore) => AccountStore;
    /** Wraps the real consent store. */
    consents?: (store: ConsentStore) => ConsentStore;
    /** Wraps the real access-token signer, e.g. to hold a signature or make it fail. */
    signer?: (signer: TokenSigner) => TokenSigner;
  },
): Promise<TokenActorSetup> {
  const db = openDatabase(options.dataDir ?? ':memory:', { synchronous: 'NORMAL' });
  const accountStore = sqliteAccountStore(db);
  await loadInitialData(accountStore, readInitialData('data/initial-data.json'));
  const keys = fixedKeyRing(await loadConfiguredKey(TEST_SIGNING_KEY, 256, 'security.signing-key'), []);
  const events: AccountEvent[] = [];
  const throttle = createLoginThrottle(
    { maxFailuresPerUser: 3, maxFailuresPerAddress: 50, windowSeconds: 600 },
    sqliteLoginThrottleStore(db),
  );
  const unknownAccount = await createUnknownAccountHash({
    accounts: accountStore,
    passwords: options.hasher,
    configuredCost: 4,
    // A test's database may be closed under a check; the suites read the hash chosen, not this.
    onError: () => {},
  });
  await unknownAccount.settled();
  const failures: unknown[] = [];
  const bcryptCost = options.bcryptCost ?? 4;
  const rehash = createPasswordRehash({
    accounts: accountStore,
    passwords: options.hasher,
    bcryptCost,
    onError: (error) => failures.push(error),
  });
  // The server's wiring (src/composition/login-actors.ts) over this database.
  const deps = loginActorDeps({
    accounts: accountStore,
    refreshTokens: (options.refreshTokens ?? ((store) => store))(sqliteRefreshTokenStore(db)),
    revocations: (options.revocations ?? ((store) => store))(sqliteRevocationStore(db)),
    codes: sqliteAuthorizationCodeStore(db),
    consents: (options.consents ?? ((store) => store))(sqliteConsentStore(db)),
    tickets: sqliteConsentTicketStore(db),
    sessions: sqliteSessionStore(db),
    sessionMaxAge: 3600,
    keys,
    idTokenKeys: { signing: ID_TOKEN_KEY },
    settings: SETTINGS,
    clients: options.clients ?? [CLIENT],
    passwords: options.hasher,
    bcryptCost,
    productName: 'troupe',
    dummyHash: unknownAccount.current,
    rehash: rehash.afterMatch,
    throttle,
    refreshTokenValidity: options.refreshTokenValidity ?? 600,
    maxLoginsPerAccount: options.maxLoginsPerAccount ?? 100,
    maxRevokedTokensPerLogin: options.maxRevokedTokensPerLogin ?? 100,
    onAccountEvent: (event) => events.push(event),
    now: options.now,
  });
  const onCrash = options.onCrash ?? replyThenResume(() => {});
  // The account store as it is for AccountActor: a wrapper holds the TokenActor's steps, not administration's.
  const token = spawnTokenActor(system, {
    ...deps.token,
    accounts: (options.accounts ?? ((store) => store))(accountStore),
    signAccessToken: (options.signer ?? ((signer) => signer))(deps.token.signAccessToken),
    onCrash,
  });
  const accounts = spawnAccountActor(system, { ...deps.accounts, onCrash });
  return {
    system,
    token,
    accounts,
    db,
    verify: deps.token.verifyAccessToken,
    events,
    throttle,
    unknownAccount,
    rehash: { ...rehash, failures },
  };
}

/** Asks the setup's TokenActor (`sendToken`) or AccountActor (`administer`), probing the system while it waits. */
export const sendToken = <R>(setup: TokenActorSetup, request: Request<Token.Command, R>): Promise<R> =>
  askWithProbe(setup.system, setup.token, request, 10_000);
export const administer = <R>(setup: TokenActorSetup, request: Request<Accounts.Command, R>): Promise<R> =>
  askWithProbe(setup.system, setup.accounts, request, 10_000);

/** The value of an ok reply; throws with the failure's code and message otherwise. */
export function okValue<T>(reply: Reply<T, string>): T {
  if (!reply.ok) throw new Error(`expected ok, got ${reply.code}: ${reply.message}`);
  return reply.value;
}

/** What a TokenActor standing for one process may be given besides the shared hasher and file. */
export type ProcessOptions = Omit<Parameters<typeof startTokenActor>[1], 'hasher' | 'dataDir'>;

/**
 * TokenActors on one SQLite file, each in an actor system of its own, standing for processes.
 * Registers the suite's hooks (one BCrypt pool for the suite, a data directory per test, every
 * system stopped and database closed after it) and returns the function that starts one more.
 */
export function processesOnOneFile<C>(
  t: Test<C>,
  name: string,
): (options?: ProcessOptions) => Promise<TokenActorSetup> {
  const state = {
    dir: '',
    hasher: undefined as PasswordHasher | undefined,
    systems: [] as ActorSystem[],
    setups: [] as TokenActorSetup[],
  };
  t.before(() => {
    state.hasher = createPasswordHasher(2);
  });
  t.before.each(() => {
    state.dir = tempDir(`troupe-${name}-`);
  });
  t.after.each(() => {
    for (const system of state.systems.splice(0)) stopSystem(system);
    for (const setup of state.setups.splice(0)) setup.db.close();
    rmSync(state.dir, { recursive: true, force: true });
  });
  t.after(async () => {
    await state.hasher?.close();
  });
  return async (options = {}) => {
    const hasher = state.hasher;
    if (!hasher) throw new Error('the suite has not started');
    const system = startSystem(`${name}-${state.systems.length}`);
    state.systems.push(system);
    const setup = await startTokenActor(system, { ...options, hasher, dataDir: state.dir });
    state.setups.push(setup);
    return setup;
  };
}
