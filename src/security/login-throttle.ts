/**
 * Throttles password logins per username and per client address, and failed client
 * authentications per address, without handing attackers a lock-out tool. The counts
 * (rate-limiter-flexible limiters) and the pairs of username and address that logged in are kept
 * in the store ({@link LoginThrottleStore}), not in memory: every process serving one store shares
 * them, so the limits hold for the service as a whole.
 * - every attempt is counted before its secret is checked, so parallel guesses cannot all slip
 *   through before the first failure is recorded; a success, or an attempt that never reached the
 *   check, gives its count back in the window it was counted in; a refused attempt leaves no count
 *   (and no key) behind;
 * - a username's count across all addresses only holds back addresses that never logged in as that
 *   account: once an address has logged in successfully, it is held back by its own failures for that
 *   username (and by the address's count) only, so failures from elsewhere never lock the account out
 *   of a place it has logged in from (the most recently seen pairs, up to `MAX_TRUSTED_PAIRS`).
 * Usernames are kept as SHA-256 digests: a key's size does not depend on what a client sends.
 * Counts that cannot be read admit nothing: the attempt fails with StoreUnavailableError.
 */
import { hash } from 'node:crypto';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { LoginThrottleStore } from '../stores/login-throttle-store.ts';
import { StoreUnavailableError } from '../store-unavailable.ts';
import { canonicalUsername } from './usernames.ts';

export interface ThrottleSettings {
  readonly maxFailuresPerUser: number;
  readonly maxFailuresPerAddress: number;
  /** Seconds a failure counts. */
  readonly windowSeconds: number;
}

/** One admitted attempt; settle it once with the outcome of the check. */
export interface Attempt {
  /** Wrong secret: the attempt stays counted. */
  failed(): Promise<void>;
  /** Right secret: the attempt is given back (a login also makes the address known for the account). */
  succeeded(): Promise<void>;
  /** The secret was never judged (an error, a timeout): the attempt is given back. */
  abandoned(): Promise<void>;
}

export type Admission = { readonly retryAfter: number } | { readonly attempt: Attempt };

export interface LoginThrottle {
  /** Counts a password attempt of `username` from `address`, or refuses it with the seconds to wait. */
  begin(username: string, address: string): Promise<Admission>;
  /** Counts a client authentication from `address`, or refuses it with the seconds to wait. */
  beginClient(address: string): Promise<Admission>;
  /** Forgets the failures counted against `username`, from every address (an administrator's unlock). */
  clear(username: string): Promise<void>;
}

/** Pairs of (username, address) that logged in successfully, most recent last; the oldest go first. */
const MAX_TRUSTED_PAIRS = 100_000;

interface Counter {
  readonly limiter: RateLimiterAbstract;
  readonly key: string;
}
/** A counted attempt: where, and the window its count was made in (its end as the store holds it). */
interface Counted extends Counter {
  readonly windowEnds: number | undefined;
}

const resOf = (r: PromiseSettledResult<RateLimiterRes>): RateLimiterRes | undefined =>
  r.status === 'fulfilled' ? r.value : r.reason instanceof RateLimiterRes ? r.reason : undefined;

/**
 * Gives each count back in the window it was counted in, by the store's own record of that window
 * (not by comparing clocks): a window that has ended gave way to a new one, which counts from zero.
 */
const giveBack = (store: LoginThrottleStore, counted: readonly Counted[]): Promise<unknown> =>
  Promise.all(
    counted.map(({ limiter, key, windowEnds }) =>
      windowEnds === undefined ? undefined : store.giveBack(limiter, key, windowEnds),
    ),
  );

/**
 * Counts the attempt on every counter (each count is one atomic upsert in the store, which answers
 * the new total: concurrent attempts, in this process or another, each see their own). Refused
 * when any counter is past its limit: then every count just made is given back (a key left at
 * zero is removed) and the longest wait is returned.
 */
async function count(store: LoginThrottleStore, counters: readonly Counter[]): Promise<Counted[] | number> {
  const settled = await Promise.allSettled(counters.map(({ limiter, key }) => limiter.consume(key, 1)));
  const results = settled.map(resOf);
  const counted = counters.map((c, i) => {
    const result = results[i];
    return { ...c, windowEnds: result && store.windowOf(result) };
  });
  const fault = settled.find(
    (r): r is PromiseRejectedResult => r.status === 'rejected' && !(r.reason instanceof RateLimiterRes),
  );
  if (fault) {
    // The counts cannot be read: fail closed (no attempt is admitted), giving back what was counted.
    await Promise.allSettled([giveBack(store, counted)]);
    throw new StoreUnavailableError("the login throttle's counts cannot be read", { cause: fault.reason });
  }
  if (settled.every((r) => r.status === 'fulfilled')) return counted; // consume() refuses past the limit
  await giveBack(store, counted);
  const waits = results.map((r) => r?.msBeforeNext ?? 1000);
  return Math.max(1, Math.ceil(Math.min(Math.max(...waits), 86_400_000) / 1000));
}

/** Counted per username as usernames are compared: `Jane`, `ＪＡＮＥ` and `jane` are one count. */
const digest = (username: string): string => hash('sha256', canonicalUsername(username), 'base64url');

export function createLoginThrottle(settings: ThrottleSettings, store: LoginThrottleStore): LoginThrottle {
  const window = { duration: settings.windowSeconds };
  const users = store.counter({ keyPrefix: 'user', points: settings.maxFailuresPerUser, ...window });
  const pairs = store.counter({ keyPrefix: 'pair', points: settings.maxFailuresPerUser, ...window });
  const addresses = store.counter({ keyPrefix: 'addr', points: settings.maxFailuresPerAddress, ...window });
  const clients = store.counter({ keyPrefix: 'client', points: settings.maxFailuresPerAddress, ...window });

  const attempt = (counted: readonly Counted[], onSuccess: () => Promise<void>): Attempt => ({
    failed: async () => {},
    succeeded: async () => {
      await giveBack(store, counted);
      await onSuccess();
    },
    abandoned: async () => {
      await giveBack(store, counted);
    },
  });

  const admit = async (counters: readonly Counter[], onSuccess: () => Promise<void>): Promise<Admission> => {
    const counted = await count(store, counters);
    return typeof counted === 'number' ? { retryAfter: counted } : { attempt: attempt(counted, onSuccess) };
  };

  return {
    async clear(username) {
      const user = digest(username);
      await store.clearCounts(`user:${user}`);
      await store.clearCounts(`pair:${user}\n`);
    },
    async begin(username, address) {
      const user = digest(username);
      const pair = `${user}\n${address}`;
      const counters: Counter[] = [
        { limiter: pairs, key: pair },
        { limiter: addresses, key: address },
      ];
      if (!(await store.isKnown(pair))) counters.push({ limiter: users, key: user });
      return admit(counters, async () => {
        await pairs.delete(pair);
        await store.remember(pair, MAX_TRUSTED_PAIRS);
      });
    },
    beginClient(address) {
      return admit([{ limiter: clients, key: address }], async () => {});
    },
  };
}
