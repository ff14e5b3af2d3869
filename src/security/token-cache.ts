/**
 * A bounded cache of verified access tokens in front of the verifier. Verifying a JWS costs
 * ≈150–230 µs, about as much as the rest of a small request, while a client sends the same token
 * for its whole life. The cache never accepts what the verifier would refuse: an entry holds the
 * whole token and answers only a token equal to it in full; it is found by the token's last
 * {@link KEY_CHARS} characters (the end of its signature), so that a lookup hashes 32 characters
 * rather than all ≈640 of a token that arrives as a new string with every request (a token that
 * shares the tail but not the rest is a miss, verified in full). An entry lives no longer than the
 * token's `exp`, is dropped as soon as the token or its login is revoked or its signing key leaves the set (both
 * are consulted on every hit), and only accepted tokens enter it.
 * A verifier's verdict on one token can only change with time at `iat`/`nbf` (lower bounds) and
 * `exp` (upper bound), so an entry answers only between the moment it was verified and `exp`.
 */
import type { Principal } from './jwt.ts';

export type Verify = (token: string, nowMs?: number) => Promise<Principal>;

export interface TokenCacheOptions {
  /** Most tokens remembered; the least recently used is forgotten first. */
  readonly max: number;
  /** Epoch milliseconds; used when the caller passes no time of its own. */
  readonly now?: () => number;
  /**
   * The token, its login or its signing key has been taken out since it was verified, answered at
   * once from memory; undefined when a store must be read first (then `isRevoked` answers).
   */
  readonly revokedNow: (token: Principal) => boolean | undefined;
  readonly isRevoked: (token: Principal) => Promise<boolean>;
}

/** The default bound: ≈10k principals with their tokens are a few MiB. */
export const TOKEN_CACHE_MAX = 10_000;

/** How much of a token's end finds its entry. */
const KEY_CHARS = 32;
const keyOf = (token: string): string => token.slice(-KEY_CHARS);

interface Entry {
  /** The token, compared in full on every hit. */
  readonly token: string;
  readonly principal: Principal;
  /** Epoch milliseconds of the verification that let it in. */
  readonly verifiedAt: number;
}

/** The verdict on any token, from the cache when it keeps it; same refusals as the verifier. */
export type CachedVerifier = ((token: string, nowMs?: number) => Promise<Principal>) & {
  readonly size: () => number;
  /**
   * The principal of a token the cache keeps (verified before, so well-formed then: this exact
   * token, not expired, and known at once not to be revoked); undefined for any other, which the
   * verifier itself answers.
   */
  readonly lookup: (token: string, nowMs?: number) => Principal | undefined;
};

/** Wraps `verify` with the cache; same signature, same refusals (they always come from `verify`). */
export function cachedVerifier(verify: Verify, options: TokenCacheOptions): CachedVerifier {
  if (!Number.isInteger(options.max) || options.max < 1)
    throw new RangeError('token cache max must be a positive integer');
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();

  /**
   * Once the cache is half full, a hit moves its entry last (most recently used), so that the
   * least recently used is forgotten first; below that nothing is forgotten, and the hit saves two
   * map operations.
   */
  const half = options.max / 2;
  const touch = (key: string, entry: Entry): Principal => {
    if (entries.size > half) {
      entries.delete(key);
      entries.set(key, entry);
    }
    return entry.principal;
  };
  const forget = (key: string): undefined => {
    entries.delete(key);
    return undefined;
  };

  /** Past exp, or before it was verified (a clock set back): forgotten, the verifier asked. */
  const outlived = (entry: Entry, nowMs: number): boolean =>
    nowMs >= entry.principal.exp * 1000 || nowMs < entry.verifiedAt;

  const remember = (key: string, entry: Entry): void => {
    entries.set(key, entry);
    while (entries.size > options.max) {
      const oldest = entries.keys().next();
      if (oldest.done) break;
      entries.delete(oldest.value);
    }
  };

  const miss = async (token: string, key: string, nowMs: number): Promise<Principal> => {
    const principal = await verify(token, nowMs);
    if (nowMs < principal.exp * 1000) remember(key, { token, principal, verifiedAt: nowMs });
    return principal;
  };

  const kept = (token: string, key: string): Entry | undefined => {
    const entry = entries.get(key);
    return entry?.token === token ? entry : undefined;
  };

  /** Answers at once, without a promise: the common path of every request with a bearer token. */
  const lookup = (token: string, nowMs: number = now()): Principal | undefined => {
    const key = keyOf(token);
    const entry = kept(token, key);
    if (entry === undefined) return undefined;
    if (outlived(entry, nowMs)) return forget(key);
    const revoked = options.revokedNow(entry.principal);
    if (revoked === undefined) return undefined;
    return revoked ? forget(key) : touch(key, entry);
  };

  /** A kept token whose revocation needs a read is answered after it; any other by the verifier. */
  const cached = async (token: string, nowMs: number = now()): Promise<Principal> => {
    const key = keyOf(token);
    const entry = kept(token, key);
    if (entry !== undefined && !outlived(entry, nowMs)) {
      if (!(await options.isRevoked(entry.principal))) return touch(key, entry);
    }
    if (entry !== undefined) forget(key);
    return miss(token, key, nowMs);
  };
  return Object.assign(cached, { size: () => entries.size, lookup });
}
