/**
 * Throttles failed password logins per username and per client address (rate-limiter-flexible, in
 * memory). It throttles rather than locks: a username refuses attempts only until its window ends,
 * so an attacker can delay a user's login by at most one window, never lock the account.
 */
import { RateLimiterMemory } from 'rate-limiter-flexible';

export interface ThrottleSettings {
  readonly maxFailuresPerUser: number;
  readonly maxFailuresPerAddress: number;
  /** Seconds a failure counts. */
  readonly windowSeconds: number;
}

export interface LoginThrottle {
  /** Seconds to wait before another attempt, or 0 when one is allowed now. */
  retryAfter(username: string, address: string): Promise<number>;
  failed(username: string, address: string): Promise<void>;
  /** A successful login forgets the username's failures (not the address's). */
  succeeded(username: string): Promise<void>;
}

export function createLoginThrottle(settings: ThrottleSettings): LoginThrottle {
  const users = new RateLimiterMemory({ keyPrefix: 'user', points: settings.maxFailuresPerUser, duration: settings.windowSeconds });
  const addresses = new RateLimiterMemory({ keyPrefix: 'addr', points: settings.maxFailuresPerAddress, duration: settings.windowSeconds });
  const wait = async (limiter: RateLimiterMemory, key: string, max: number): Promise<number> => {
    const state = await limiter.get(key);
    return state && state.consumedPoints >= max ? Math.max(1, Math.ceil(state.msBeforeNext / 1000)) : 0;
  };
  const userKey = (username: string): string => username.toLowerCase();
  return {
    async retryAfter(username, address) {
      const [u, a] = await Promise.all([
        wait(users, userKey(username), settings.maxFailuresPerUser), wait(addresses, address, settings.maxFailuresPerAddress),
      ]);
      return Math.max(u, a);
    },
    async failed(username, address) {
      await Promise.all([users.penalty(userKey(username), 1), addresses.penalty(address, 1)]);
    },
    async succeeded(username) {
      await users.delete(userKey(username));
    },
  };
}
