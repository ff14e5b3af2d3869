/**
 * Throttles password logins per username and per client address, and failed client
 * authentications per client and per address, without handing attackers a lock-out tool. The counts
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
 *   of a place it has logged in from (the most recently seen pairs, up to `MAX_TRUSTED_PAIRS`);
 *   a client's count across all addresses holds back, the same way, only addresses that never
 *   authenticated as that client;
 * - a client authentication first reads the counts ({@link LoginThrottle.readClient}, no write):
 *   past a limit it is refused, whatever its secret. Only then may a secret this process has
 *   already verified pass uncounted ({@link LoginThrottle.clientMatched}); any other is counted
 *   ({@link LoginThrottle.beginClient}) before it is checked, as a password is.
 * Usernames are kept as SHA-256 digests: a key's size does not depend on what a client sends.
 * Counts that cannot be read admit nothing: the attempt fails with StoreUnavailableError.
 */
import { hash } from 'node:crypto';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { CountKey, CountNow, LoginThrottleStore } from '../stores/login-throttle-store.ts';
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
  /**
   * Reads, without counting (no write), whether a client authentication of `clientId` from
   * `address` is held back: the seconds to wait, or undefined.
   */
  readClient(clientId: string, address: string): Promise<number | undefined>;
  /**
   * A client authenticated, after {@link readClient}, by a secret this process had verified before:
   * nothing is counted, so nothing is given back. Writes only when this process has not remembered
   * the (client, address) pair lately (once a day at most), so that the address stays known for the
   * client in every process and across restarts.
   */
  clientMatched(clientId: string, address: string): Promise<void>;
  /** Counts a client authentication of `clientId` from `address`, or refuses it with the seconds to wait. */
  beginClient(clientId: string, address: string): Promise<Admission>;
  /** Forgets the failures counted against `username`, from every address (an administrator's unlock). */
  clear(username: string): Promise<void>;
}

/** Pairs of (username, address) that logged in successfully, most recent last; the oldest go first. */
const MAX_TRUSTED_PAIRS = 100_000;
/** Client pairs this process wrote lately, so that a success does not write them again. */
const MAX_PAIRS_WRITTEN_HERE = 10_000;
/**
 * How long this process trusts its own note that a client pair is in the store: then a success
 * writes it again, refreshing its place among the `MAX_TRUSTED_PAIRS` most recently seen.
 */
const REWRITE_PAIR_AFTER_MS = 86_400_000;

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
  return seconds(results.map((r) => r?.msBeforeNext ?? 1000));
}

/** The longest of `waits` (ms), in whole seconds, at least one and at most a day. */
const seconds = (waits: readonly number[]): number =>
  Math.max(1, Math.ceil(Math.min(Math.max(...waits), 86_400_000) / 1000));

/** Counted per username as usernames are compared: `Jane`, `ＪＡＮＥ` and `jane` are one count. */
const digest = (username: string): string => hash('sha256', canonicalUsername(username), 'base64url');
/** Client ids compare exactly; kept apart from usernames among the known pairs by their prefix. */
const clientDigests = new Map<string, string>();
/** Digests of the client ids seen lately (a bounded memo: every client authentication needs its own). */
const MAX_CLIENT_DIGESTS = 1024;
const clientDigest = (clientId: string): string => {
  let digested = clientDigests.get(clientId);
  if (digested === undefined) {
    digested = hash('sha256', clientId, 'base64url');
    if (clientDigests.size >= MAX_CLIENT_DIGESTS) clientDigests.delete(clientDigests.keys().next().value ?? '');
    clientDigests.set(clientId, digested);
  }
  return digested;
};
const clientPair = (clientId: string, address: string): string => `client:${clientDigest(clientId)}\n${address}`;

export function createLoginThrottle(settings: ThrottleSettings, store: LoginThrottleStore): LoginThrottle {
  const window = { duration: settings.windowSeconds };
  const users = store.counter({ keyPrefix: 'user', points: settings.maxFailuresPerUser, ...window });
  const pairs = store.counter({ keyPrefix: 'pair', points: settings.maxFailuresPerUser, ...window });
  const addresses = store.counter({ keyPrefix: 'addr', points: settings.maxFailuresPerAddress, ...window });
  const clients = store.counter({ keyPrefix: 'client', points: settings.maxFailuresPerAddress, ...window });
  const clientIds = store.counter({ keyPrefix: 'client-id', points: settings.maxFailuresPerUser, ...window });
  const clientPairs = knownClientPairs(store);

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
    async readClient(clientId, address) {
      const [byAddress, byClient] = await readCounts(store, [
        { counter: clients, key: address },
        { counter: clientIds, key: clientDigest(clientId) },
      ]);
      const waits: number[] = [];
      if (byAddress && byAddress.consumedPoints >= settings.maxFailuresPerAddress) waits.push(byAddress.msBeforeNext);
      if (
        byClient &&
        byClient.consumedPoints >= settings.maxFailuresPerUser &&
        !(await clientPairs.isKnown(clientPair(clientId, address)))
      )
        waits.push(byClient.msBeforeNext);
      return waits.length === 0 ? undefined : seconds(waits);
    },
    clientMatched: (clientId, address) => clientPairs.remember(clientPair(clientId, address)),
    async beginClient(clientId, address) {
      const pair = clientPair(clientId, address);
      const counters: Counter[] = [{ limiter: clients, key: address }];
      if (!(await clientPairs.isKnown(pair))) counters.push({ limiter: clientIds, key: clientDigest(clientId) });
      return admit(counters, () => clientPairs.remember(pair));
    },
  };
}

/** Reads counts (no write); counts that cannot be read admit nothing. */
async function readCounts(store: LoginThrottleStore, keys: readonly CountKey[]): Promise<readonly (CountNow | null)[]> {
  try {
    return await store.readCounts(keys);
  } catch (error) {
    throw new StoreUnavailableError("the login throttle's counts cannot be read", { cause: error });
  }
}

/**
 * The (client, address) pairs that authenticated, as the store keeps them, with a note of those
 * this process wrote lately: a pair it wrote is known without a read, and a success writes it once
 * a day at most. A crash loses only that note (the next success writes the pair again); the
 * store's own copy is what every process and a restart go by.
 */
function knownClientPairs(store: LoginThrottleStore) {
  const written = new Map<string, number>();
  const fresh = (pair: string): boolean => (written.get(pair) ?? -Infinity) > Date.now() - REWRITE_PAIR_AFTER_MS;
  return {
    isKnown: async (pair: string): Promise<boolean> => fresh(pair) || store.isKnown(pair),
    async remember(pair: string): Promise<void> {
      if (fresh(pair)) return;
      await store.remember(pair, MAX_TRUSTED_PAIRS);
      written.delete(pair);
      written.set(pair, Date.now());
      if (written.size > MAX_PAIRS_WRITTEN_HERE) written.delete(written.keys().next().value ?? '');
    },
  };
}
