/**
 * Throttles password logins per username and per client address (rate-limiter-flexible, in
 * memory), without handing attackers a lock-out tool:
 * - every attempt is counted before its password is checked, so parallel guesses cannot all slip
 *   through before the first failure is recorded; a success or an attempt that never reached the
 *   password check gives its count back;
 * - a username's count across all addresses only holds back addresses that never logged in as that
 *   user: once an address has logged in successfully, it is held back by its own failures for that
 *   username (and by the address's count) only, so failures from elsewhere never lock the user out
 *   of a place it has logged in from.
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export interface ThrottleSettings {
  readonly maxFailuresPerUser: number;
  readonly maxFailuresPerAddress: number;
  /** Seconds a failure counts. */
  readonly windowSeconds: number;
}

/** One admitted attempt; settle it once with the outcome of the password check. */
export interface LoginAttempt {
  /** Wrong password: the attempt stays counted. */
  failed(): Promise<void>;
  /** Right password: the attempt is given back, the address's failures for this user are forgotten and the address is trusted for this user. */
  succeeded(): Promise<void>;
  /** The password was never judged (an error, a timeout): the attempt is given back. */
  abandoned(): Promise<void>;
}

export type Admission = { readonly retryAfter: number } | { readonly attempt: LoginAttempt };

export interface LoginThrottle {
  /** Counts an attempt of `username` from `address`, or refuses it with the seconds to wait. */
  begin(username: string, address: string): Promise<Admission>;
  /**
   * Seconds the address must wait after too many failed client authentications, or 0. Client
   * secrets are long random strings, so these are not guesses worth racing for: the count only
   * keeps one address from spending the BCrypt pool on wrong secrets.
   */
  clientRetryAfter(address: string): Promise<number>;
  /** A client authentication from `address` failed. */
  clientFailed(address: string): Promise<void>;
}

/** Pairs of (username, address) that logged in successfully, most recent last; the oldest go first. */
const MAX_TRUSTED_PAIRS = 100_000;

interface Counter { readonly limiter: RateLimiterMemory; readonly key: string }

/** Gives an attempt back, unless its window has ended meanwhile (a new window starts at zero). */
async function giveBack({ limiter, key }: Counter): Promise<void> {
  if (await limiter.get(key)) await limiter.reward(key, 1);
}

/** Counts the attempt on every counter at once; the longest wait of those past their limit, or 0. */
async function count(counters: readonly Counter[]): Promise<number> {
  // consume() counts synchronously, so no other request can come between these counts.
  const results = await Promise.allSettled(counters.map(({ limiter, key }) => limiter.consume(key, 1)));
  const waits = results.map((r) => (r.status === 'fulfilled' ? 0 : r.reason instanceof RateLimiterRes ? r.reason.msBeforeNext : Infinity));
  const longest = Math.max(0, ...waits);
  return longest === 0 ? 0 : Math.max(1, Math.ceil(Math.min(longest, 86_400_000) / 1000));
}

export function createLoginThrottle(settings: ThrottleSettings): LoginThrottle {
  const window = { duration: settings.windowSeconds };
  const users = new RateLimiterMemory({ keyPrefix: 'user', points: settings.maxFailuresPerUser, ...window });
  const pairs = new RateLimiterMemory({ keyPrefix: 'pair', points: settings.maxFailuresPerUser, ...window });
  const addresses = new RateLimiterMemory({ keyPrefix: 'addr', points: settings.maxFailuresPerAddress, ...window });
  const clients = new RateLimiterMemory({ keyPrefix: 'client', points: settings.maxFailuresPerAddress, ...window });
  const trusted = new Set<string>();

  const trust = (pair: string): void => {
    trusted.delete(pair);
    trusted.add(pair);
    const oldest = trusted.values().next();
    if (trusted.size > MAX_TRUSTED_PAIRS && !oldest.done) trusted.delete(oldest.value);
  };

  const attempt = (pair: string, counters: readonly Counter[]): LoginAttempt => ({
    failed: async () => {},
    succeeded: async () => {
      await Promise.all(counters.map(giveBack));
      await pairs.delete(pair);
      trust(pair);
    },
    abandoned: async () => { await Promise.all(counters.map(giveBack)); },
  });

  return {
    async begin(username, address) {
      const user = username.toLowerCase();
      const pair = `${user}\n${address}`;
      const counters: Counter[] = [{ limiter: pairs, key: pair }, { limiter: addresses, key: address }];
      if (!trusted.has(pair)) counters.push({ limiter: users, key: user });
      const retryAfter = await count(counters);
      if (retryAfter === 0) return { attempt: attempt(pair, counters) };
      await Promise.all(counters.map(giveBack)); // a refused attempt is not counted
      return { retryAfter };
    },
    async clientRetryAfter(address) {
      const state = await clients.get(address);
      return state && state.consumedPoints >= settings.maxFailuresPerAddress ? Math.max(1, Math.ceil(state.msBeforeNext / 1000)) : 0;
    },
    async clientFailed(address) {
      await clients.penalty(address, 1);
    },
  };
}
