/**
 * Port: where the login throttle keeps its counts, so that every process serving one store counts
 * for the service as a whole (N processes never allow N times the guesses).
 */
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';

export interface CounterOptions {
  /** Keeps the keys of one counter apart from another's. */
  readonly keyPrefix: string;
  /** Attempts allowed per window. */
  readonly points: number;
  /** The window, seconds. */
  readonly duration: number;
}

/** A key's count in its current window, as read. */
export interface CountNow {
  readonly consumedPoints: number;
  /** Until the window ends (-1: a count that never ends). */
  readonly msBeforeNext: number;
}

/** One key of one counter. */
export interface CountKey {
  readonly counter: RateLimiterAbstract;
  readonly key: string;
}

export interface LoginThrottleStore {
  /**
   * A rate-limiter-flexible limiter over this store: attempts per key and window. Its `consume` is
   * one atomic write; its `get` reads a key's count in its current window and writes nothing (one
   * query: SQLite a `select`, MongoDB a `findOne`), what a success costs in place of a count.
   */
  counter(options: CounterOptions): RateLimiterAbstract;
  /**
   * The counts of `keys` in their current windows (null: none), read together and writing
   * nothing; SQLite reads them in one statement.
   */
  readCounts(keys: readonly CountKey[]): Promise<readonly (CountNow | null)[]>;
  /**
   * The window a count of one of this store's counters was made in: its end (epoch ms) exactly as
   * the store holds it, read from the same write that made the count. Undefined for a result that
   * no counter of this store made.
   */
  windowOf(result: RateLimiterRes): number | undefined;
  /**
   * Takes one count back from `key` of `counter`, only if the key still counts in the window ending
   * `windowEnds` (a window that ended gave way to a new one, which counts from zero) and never below
   * zero; a key left at zero is removed. One conditional write: concurrent counts and give-backs,
   * in any process, are never lost.
   */
  giveBack(counter: RateLimiterAbstract, key: string, windowEnds: number): Promise<void>;
  /** Whether the pair (a username digest and an address) has logged in successfully. */
  isKnown(pair: string): Promise<boolean>;
  /** Remembers a pair that logged in successfully; the least recently seen beyond `max` are forgotten. */
  remember(pair: string, max: number): Promise<void>;
  /** Deletes every count whose stored key (`<keyPrefix>:<key>`) begins with `start`; returns how many. */
  clearCounts(start: string): Promise<number>;
  /** Deletes counts whose windows ended before `nowMs`; returns how many. */
  purgeExpired(nowMs: number): Promise<number>;
}
