/**
 * Port: where the login throttle keeps its counts, so that every process serving one store counts
 * for the service as a whole (N processes never allow N times the guesses).
 */
import type { RateLimiterAbstract } from 'rate-limiter-flexible';

export interface CounterOptions {
  /** Keeps the keys of one counter apart from another's. */
  readonly keyPrefix: string;
  /** Attempts allowed per window. */
  readonly points: number;
  /** The window, seconds. */
  readonly duration: number;
}

export interface LoginThrottleStore {
  /** A rate-limiter-flexible limiter over this store: attempts per key and window. */
  counter(options: CounterOptions): RateLimiterAbstract;
  /** Whether the pair (a username digest and an address) has logged in successfully. */
  isKnown(pair: string): Promise<boolean>;
  /** Remembers a pair that logged in successfully; the least recently seen beyond `max` are forgotten. */
  remember(pair: string, max: number): Promise<void>;
  /** Deletes counts whose windows ended before `nowMs`; returns how many. */
  purgeExpired(nowMs: number): Promise<number>;
}
