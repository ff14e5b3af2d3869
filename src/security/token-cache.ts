/**
 * A bounded cache of verified access tokens in front of the verifier. Verifying a JWS costs
 * ≈150–230 µs, about as much as the rest of a small request, while a client sends the same token
 * for its whole life. The cache never accepts what the verifier would refuse: an entry is keyed by
 * the SHA-256 of the whole token, lives no longer than the token's `exp`, is dropped as soon as
 * the token or its login is revoked (the denylist is consulted on every hit), and only accepted tokens enter it.
 * A verifier's verdict on one token can only change with time at `iat`/`nbf` (lower bounds) and
 * `exp` (upper bound), so an entry answers only between the moment it was verified and `exp`.
 */
import type { Revocable } from './denylist.ts';
import type { Principal } from './jwt.ts';
import { hashToken } from './refresh-tokens.ts';

export type Verify = (token: string, nowMs?: number) => Promise<Principal>;

export interface TokenCacheOptions {
  /** Most tokens remembered; the least recently used is forgotten first. */
  readonly max: number;
  /** Epoch milliseconds; used when the caller passes no time of its own. */
  readonly now?: () => number;
  readonly isRevoked: (token: Revocable) => Promise<boolean>;
}

/** The default bound: ≈10k principals are a few MiB. */
export const TOKEN_CACHE_MAX = 10_000;

interface Entry {
  readonly principal: Principal;
  /** Epoch milliseconds of the verification that let it in. */
  readonly verifiedAt: number;
}

/** Wraps `verify` with the cache; same signature, same refusals (they always come from `verify`). */
export function cachedVerifier(verify: Verify, options: TokenCacheOptions): Verify & { readonly size: () => number } {
  if (!Number.isInteger(options.max) || options.max < 1) throw new RangeError('token cache max must be a positive integer');
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();

  const hit = async (key: string, nowMs: number): Promise<Principal | undefined> => {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    // Past exp, before it was verified (a clock set back), or revoked since: forget it, ask the verifier.
    const { principal, verifiedAt } = entry;
    if (nowMs >= principal.exp * 1000 || nowMs < verifiedAt || await options.isRevoked(principal)) {
      entries.delete(key);
      return undefined;
    }
    entries.delete(key);
    entries.set(key, entry); // most recently used goes last
    return principal;
  };

  const remember = (key: string, entry: Entry): void => {
    entries.set(key, entry);
    while (entries.size > options.max) {
      const oldest = entries.keys().next();
      if (oldest.done) break;
      entries.delete(oldest.value);
    }
  };

  const cached = async (token: string, nowMs: number = now()): Promise<Principal> => {
    const key = hashToken(token);
    const found = await hit(key, nowMs);
    if (found) return found;
    const principal = await verify(token, nowMs);
    if (nowMs < principal.exp * 1000) remember(key, { principal, verifiedAt: nowMs });
    return principal;
  };
  return Object.assign(cached, { size: () => entries.size });
}
