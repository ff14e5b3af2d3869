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
  /** The token, its login or its signing key has been taken out since it was verified. */
  readonly isRevoked: (token: Principal) => boolean | Promise<boolean>;
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

export type CachedVerifier = ((token: string, nowMs?: number) => Principal | Promise<Principal>) & {
  readonly size: () => number;
  /**
   * The verdict on a token the cache keeps (verified before, so well-formed then: this exact
   * token, not yet found expired or revoked), as the verifier gives it; undefined for any other.
   */
  readonly known: (token: string, nowMs?: number) => Principal | Promise<Principal> | undefined;
};

/** Wraps `verify` with the cache; same signature, same refusals (they always come from `verify`). */
export function cachedVerifier(verify: Verify, options: TokenCacheOptions): CachedVerifier {
  if (!Number.isInteger(options.max) || options.max < 1)
    throw new RangeError('token cache max must be a positive integer');
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();

  /**
   * The cached principal of a live entry, or undefined to verify anew. Once the cache is half
   * full, a hit moves its entry last (most recently used), so that the least recently used is
   * forgotten first; below that nothing is forgotten, and the hit saves two map operations.
   */
  const half = options.max / 2;
  const live = (key: string, entry: Entry, drop: boolean): Principal | undefined => {
    if (drop) {
      entries.delete(key);
      return undefined;
    }
    if (entries.size > half) {
      entries.delete(key);
      entries.set(key, entry);
    }
    return entry.principal;
  };

  /** The principal of `entry`, kept for this exact token, while it lives. */
  const hit = (entry: Entry, key: string, nowMs: number): Principal | undefined | Promise<Principal | undefined> => {
    // Past exp, before it was verified (a clock set back), or revoked since: forget it, ask the verifier.
    const { principal, verifiedAt } = entry;
    if (nowMs >= principal.exp * 1000 || nowMs < verifiedAt) return live(key, entry, true);
    const revoked = options.isRevoked(principal);
    return typeof revoked === 'boolean' ? live(key, entry, revoked) : revoked.then((r) => live(key, entry, r));
  };

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

  /** The verdict on `token` found under `key` (`entry` when it keeps this exact token). */
  const verdict = (
    token: string,
    key: string,
    entry: Entry | undefined,
    nowMs: number,
  ): Principal | Promise<Principal> => {
    const found = entry === undefined ? undefined : hit(entry, key, nowMs);
    if (found instanceof Promise) return found.then((principal) => principal ?? miss(token, key, nowMs));
    return found ?? miss(token, key, nowMs);
  };
  const kept = (token: string, key: string): Entry | undefined => {
    const entry = entries.get(key);
    return entry?.token === token ? entry : undefined;
  };

  /** Answers at once (no promise) when the cache does and the revocation check needs no read. */
  const cached = (token: string, nowMs: number = now()): Principal | Promise<Principal> => {
    const key = keyOf(token);
    return verdict(token, key, kept(token, key), nowMs);
  };
  return Object.assign(cached, {
    size: () => entries.size,
    known: (token: string, nowMs: number = now()) => {
      const key = keyOf(token);
      const entry = kept(token, key);
      return entry && verdict(token, key, entry, nowMs);
    },
  });
}
