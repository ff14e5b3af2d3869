/**
 * The wiring of the two actors that decide logins, TokenActor and AccountActor, over the stores:
 * one revocation list, signer and verifier, and the same login bounds for both. The server builds
 * them here (`core.ts`), and so do the actor suites, over stores of their own.
 */
import type { AccountActorDeps } from '../../actors/accounts/actor.ts';
import type { AccountEvent } from '../../actors/accounts/administration.ts';
import type { TokenActorDeps } from '../../actors/token/actor.ts';
import type { Client } from '../security/clients.ts';
import { createDenylist, type Denylist } from '../security/denylist.ts';
import { createIdTokenSigner } from '../security/id-token.ts';
import {
  createTokenSigner,
  createTokenVerifier,
  type ForeignIssuer,
  type Principal,
  type TokenSettings,
  type TokenSigner,
} from '../security/jwt.ts';
import type { KeyRing } from '../security/key-ring.ts';
import type { LoginThrottle } from '../security/login-throttle.ts';
import type { PasswordRehash } from '../security/password-rehash.ts';
import type { PasswordHasher } from '../security/passwords.ts';
import { clientSubjects } from '../security/subjects.ts';
import { cachedVerifier, TOKEN_CACHE_MAX } from '../security/token-cache.ts';
import type { AuthorizationCodeStore } from '../stores/authorization-code-store.ts';
import type { AccountStore } from '../stores/account-store.ts';
import type { ConsentStore } from '../stores/consent-store.ts';
import type { ConsentTicketStore } from '../stores/consent-ticket-store.ts';
import type { RefreshTokenStore } from '../stores/refresh-token-store.ts';
import type { RevocationStore } from '../stores/revocation-store.ts';
import type { SessionStore } from '../stores/session-store.ts';
import { createSessions } from '../security/sign-in-sessions.ts';

export interface LoginActorParts {
  readonly accounts: AccountStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly revocations: RevocationStore;
  readonly codes: AuthorizationCodeStore;
  readonly consents: ConsentStore;
  readonly tickets: ConsentTicketStore;
  readonly sessions: SessionStore;
  /** Seconds a sign-in session lasts (`security.sign-in.session-max-age-seconds`). */
  readonly sessionMaxAge: number;
  readonly keys: Pick<KeyRing, 'signing' | 'verifying' | 'verifiesNow'>;
  /** The id_token keys, of their own lineage: their active key signs id_tokens. */
  readonly idTokenKeys: Pick<KeyRing, 'signing'>;
  readonly settings: TokenSettings;
  readonly clients: readonly Client[];
  readonly passwords: PasswordHasher;
  /** BCrypt cost of the passwords AccountActor sets, and of those a login hashes again. */
  readonly bcryptCost: number;
  /** `security.sign-in.product-name`, which a password set here must not hold. */
  readonly productName: string;
  /** What an unknown username's password is compared against. */
  readonly dummyHash: () => string;
  /** Told of each login's matched password (src/security/password-rehash.ts). */
  readonly rehash: PasswordRehash['afterMatch'];
  readonly throttle: LoginThrottle;
  /** Seconds a login's refresh tokens live. */
  readonly refreshTokenValidity: number;
  readonly maxLoginsPerAccount: number;
  readonly maxRevokedTokensPerLogin: number;
  readonly onAccountEvent: (event: AccountEvent) => void;
  /** Told of each access token refused for naming another issuer than `settings.issuer`. */
  readonly onForeignIssuer?: ForeignIssuer | undefined;
  /** Epoch milliseconds: both actors' clock and the revocation list's. Unset: the system clock. */
  readonly now?: (() => number) | undefined;
}

/** Wrappers tests put around the server's parts (a signature held at a gate); production passes none. */
export interface CoreOverrides {
  /** Wraps the access-token signer TokenActor is given. */
  readonly signer?: ((signer: TokenSigner) => TokenSigner) | undefined;
}

export interface LoginActorDeps {
  readonly token: Omit<TokenActorDeps, 'onCrash'>;
  readonly accounts: Omit<AccountActorDeps, 'onCrash'>;
}

type Keys = LoginActorParts['keys'];

/**
 * The cached token's signing key left the set, or the token or its login was revoked: answered at
 * once while neither store has anything new, else undefined (then {@link revokedSince} answers).
 */
function revokedNow(keys: Keys, denylist: Denylist, principal: Principal): boolean | undefined {
  const verifies = keys.verifiesNow(principal.kid);
  return verifies === false ? true : verifies && denylist.revokedNow(principal);
}

async function revokedSince(keys: Keys, denylist: Denylist, principal: Principal): Promise<boolean> {
  return (await keys.verifying(principal.kid)) === undefined || denylist.isRevoked(principal);
}

export function loginActorDeps(parts: LoginActorParts): LoginActorDeps {
  const { now } = parts;
  const denylist = createDenylist(parts.revocations, now && (() => Math.floor(now() / 1000)));
  const clock = now ? { now } : {};
  // One cache of verified access tokens for the process: the resource server's bearer tokens and
  // TokenActor's revocation and introspection (src/security/token-cache.ts).
  const verify = createTokenVerifier(parts.keys.verifying, parts.settings, denylist.isRevoked, parts.onForeignIssuer);
  const verifyAccessToken = cachedVerifier(verify, {
    max: TOKEN_CACHE_MAX,
    ...clock,
    revokedNow: (principal) => revokedNow(parts.keys, denylist, principal),
    isRevoked: (principal) => revokedSince(parts.keys, denylist, principal),
  });
  // Ending logins (src/security/logins.ts), for both actors: their bounds and horizons.
  const logins = {
    denylist,
    refreshTokens: parts.refreshTokens,
    refreshTokenValidity: parts.refreshTokenValidity,
    accessTokenValidity: parts.settings.validity,
    maxLoginsPerAccount: parts.maxLoginsPerAccount,
    maxRevokedTokensPerLogin: parts.maxRevokedTokensPerLogin,
  };
  return {
    token: {
      ...logins,
      ...clock,
      clients: parts.clients,
      accounts: parts.accounts,
      codes: parts.codes,
      consents: parts.consents,
      tickets: parts.tickets,
      sessions: createSessions({
        store: parts.sessions,
        accounts: parts.accounts,
        maxAge: parts.sessionMaxAge,
        ...clock,
      }),
      passwords: parts.passwords,
      signAccessToken: createTokenSigner(parts.keys.signing, parts.settings),
      // An id_token names the issuer the access tokens name, and lives as long as one.
      signIdToken: createIdTokenSigner(parts.idTokenKeys.signing, {
        issuer: parts.settings.issuer,
        validity: parts.settings.validity,
      }),
      verifyAccessToken,
      dummyHash: parts.dummyHash,
      rehash: parts.rehash,
      throttle: parts.throttle,
    },
    accounts: {
      ...logins,
      ...clock,
      accounts: parts.accounts,
      passwords: parts.passwords,
      bcryptCost: parts.bcryptCost,
      productName: parts.productName,
      throttle: parts.throttle,
      clearLockout: (username) => parts.throttle.clear(username),
      onAccountEvent: parts.onAccountEvent,
      clientSubjects: clientSubjects(parts.clients),
    },
  };
}
