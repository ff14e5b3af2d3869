/**
 * Throttles password logins per username and per client address, and failed client
 * authentications per client and per address, without handing attackers a lock-out tool. The counts
 * (rate-limiter-flexible limiters, `throttle-counts.ts`) and the pairs of username and address that
 * logged in are kept in the store ({@link LoginThrottleStore}), not in memory: every process serving
 * one store shares them, so the limits hold for the service as a whole.
 * - counts are read first: an attempt past a limit is refused with no write at all;
 * - every admitted attempt is counted before its secret is checked, so parallel guesses cannot all
 *   slip through before the first failure is recorded; a success, or an attempt that never reached
 *   the check, gives its count back in the window it was counted in; a failure is also noted
 *   apart, so a refusal says whether failures or attempts in flight fill the count ({@link Refusal});
 * - a username's count across all addresses only holds back addresses that never logged in as that
 *   account: once an address has logged in successfully, it is held back by its own failures for that
 *   username (and by the address's count) only, so failures from elsewhere never lock the account out
 *   of a place it has logged in from (the most recently seen pairs, up to `MAX_TRUSTED_PAIRS`);
 * - a client authentication first reads the counts ({@link LoginThrottle.readClient}, no write):
 *   past the address's limit it is refused, whatever its secret. A client's count across all
 *   addresses never refuses its right secret: past it, from an address that never authenticated as
 *   the client, only a wrong secret is refused (the caller checks the secret, counted per address
 *   only). A secret this process has already verified passes uncounted
 *   ({@link LoginThrottle.clientMatched}); any other is counted ({@link LoginThrottle.beginClient})
 *   before it is checked, as a password is.
 * Usernames are kept as SHA-256 digests: a key's size does not depend on what a client sends.
 * Counts that cannot be read admit nothing: the attempt fails with StoreUnavailableError.
 */
import { hash } from 'node:crypto';
import type { LoginThrottleStore } from '../stores/login-throttle-store.ts';
import {
  count,
  giveBack,
  noteFailures,
  refusalsNow,
  type Counted,
  type Counter,
  type Refusal,
} from './throttle-counts.ts';
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

export type { Refusal } from './throttle-counts.ts';
export type Admission = Refusal | { readonly attempt: Attempt };

/**
 * A client authentication as its counts stand: refused whatever the secret (its address is past
 * its limit), or admitted to the secret check, held back (`heldBack`: the refusal a wrong secret
 * gets) when the client is past its count across addresses at an address it never authenticated from.
 */
export type ClientStanding = { readonly refused: Refusal } | { readonly heldBack: Refusal | undefined };

export interface LoginThrottle {
  /** Counts a password attempt of `username` from `address`, or refuses it with the seconds to wait. */
  begin(username: string, address: string): Promise<Admission>;
  /** Reads, without counting (no write), how a client authentication of `clientId` from `address` stands. */
  readClient(clientId: string, address: string): Promise<ClientStanding>;
  /**
   * A client authenticated, after {@link readClient}, by a secret this process had verified before:
   * nothing is counted, so nothing is given back. Writes only when this process has not remembered
   * the (client, address) pair lately (once a day at most), so that the address stays known for the
   * client in every process and across restarts.
   */
  clientMatched(clientId: string, address: string): Promise<void>;
  /**
   * Counts a client authentication of `clientId` from `address`, or refuses it with the seconds to
   * wait. `heldBack` (as {@link readClient} read it): counted per address only, the client's own
   * count being full; its secret must then be checked before it is answered.
   */
  beginClient(clientId: string, address: string, heldBack?: boolean): Promise<Admission>;
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
  const duration = settings.windowSeconds;
  /** A counter and its twin of failures alone (`<prefix>-failed:<key>`): `counter('user')(digest)`. */
  const counter = (keyPrefix: string, points: number) => {
    const limiter = store.counter({ keyPrefix, points, duration });
    const failures = store.counter({ keyPrefix: `${keyPrefix}-failed`, points, duration });
    return (key: string): Counter => ({ limiter, failures, key });
  };
  const users = counter('user', settings.maxFailuresPerUser);
  const pairs = counter('pair', settings.maxFailuresPerUser);
  const addresses = counter('addr', settings.maxFailuresPerAddress);
  const clients = counter('client', settings.maxFailuresPerAddress);
  const clientIds = counter('client-id', settings.maxFailuresPerUser);
  const clientPairs = knownClientPairs(store);

  const attempt = (counted: readonly Counted[], onSuccess: () => Promise<void>): Attempt => ({
    failed: () => noteFailures(counted),
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
    return 'retryAfter' in counted ? counted : { attempt: attempt(counted, onSuccess) };
  };

  return {
    async clear(username) {
      const user = digest(username);
      for (const prefix of ['user', 'user-failed']) await store.clearCounts(`${prefix}:${user}`);
      for (const prefix of ['pair', 'pair-failed']) await store.clearCounts(`${prefix}:${user}\n`);
    },
    async begin(username, address) {
      const user = digest(username);
      const pair = `${user}\n${address}`;
      const byPair = pairs(pair);
      const counters = [byPair, addresses(address)];
      if (!(await store.isKnown(pair))) counters.push(users(user));
      return admit(counters, async () => {
        await byPair.limiter.delete(pair);
        await store.remember(pair, MAX_TRUSTED_PAIRS);
      });
    },
    async readClient(clientId, address) {
      // One read of both counts: the success of a known secret reads nothing else.
      const [refused, heldBack] = await refusalsNow(store, [[clients(address)], [clientIds(clientDigest(clientId))]]);
      if (refused) return { refused };
      if (heldBack && !(await clientPairs.isKnown(clientPair(clientId, address)))) return { heldBack };
      return { heldBack: undefined };
    },
    clientMatched: (clientId, address) => clientPairs.remember(clientPair(clientId, address)),
    async beginClient(clientId, address, heldBack = false) {
      const pair = clientPair(clientId, address);
      const counters = [clients(address)];
      if (!heldBack && !(await clientPairs.isKnown(pair))) counters.push(clientIds(clientDigest(clientId)));
      return admit(counters, () => clientPairs.remember(pair));
    },
  };
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
