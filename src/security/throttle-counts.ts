/**
 * The login throttle's counting (`login-throttle.ts`): counts read before they are written, so an
 * attempt refused writes nothing; then counted, each count one atomic write, and given back in the
 * window it was counted in. Each counter has a twin that counts failures only, written when an
 * attempt fails: what tells a count filled by failures from one filled by attempts still being
 * checked, wherever those run (the store is shared, so the twin is too).
 */
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { CountKey, CountNow, LoginThrottleStore } from '../stores/login-throttle-store.ts';
import { StoreUnavailableError } from '../stores/store-unavailable.ts';

/**
 * Seconds an attempt refused for the attempts in flight is asked to wait: they are settled as soon
 * as their checks end (a BCrypt comparison), so the count soon has room again, or holds failures.
 */
export const IN_FLIGHT_RETRY_SECONDS = 2;

/** Why an attempt was refused, and for how many seconds. */
export interface Refusal {
  readonly retryAfter: number;
  /** True: too many attempts are being checked at once (none need have failed); false: too many failed. */
  readonly inFlight: boolean;
}

export interface Counter {
  /** Attempts counted and kept: those in flight and those that failed. */
  readonly limiter: RateLimiterAbstract;
  /** The failures alone, under the same limit and window. */
  readonly failures: RateLimiterAbstract;
  readonly key: string;
}
/** A counted attempt: where, and the window its count was made in (its end as the store holds it). */
export interface Counted extends Counter {
  readonly windowEnds: number | undefined;
}

const resOf = (r: PromiseSettledResult<RateLimiterRes>): RateLimiterRes | undefined =>
  r.status === 'fulfilled' ? r.value : r.reason instanceof RateLimiterRes ? r.reason : undefined;

/** The longest of `waits` (ms), in whole seconds, at least one and at most a day. */
export const seconds = (waits: readonly number[]): number =>
  Math.max(1, Math.ceil(Math.min(Math.max(...waits), 86_400_000) / 1000));

const unavailable = (cause: unknown) =>
  new StoreUnavailableError("the login throttle's counts cannot be read", { cause });

/** Reads counts (no write); counts that cannot be read admit nothing. */
export async function readCounts(
  store: LoginThrottleStore,
  keys: readonly CountKey[],
): Promise<readonly (CountNow | null)[]> {
  try {
    return await store.readCounts(keys);
  } catch (error) {
    throw unavailable(error);
  }
}

/**
 * The refusal of each group of `groups` as its counters read now, or undefined for a group whose
 * counts all have room: one read of every key (each counter's count and its failures), no write.
 * A count at its limit holds the attempt back; it is a refusal for failures when the failures
 * alone reach the limit, else one for attempts in flight.
 */
export async function refusalsNow(
  store: LoginThrottleStore,
  groups: readonly (readonly Counter[])[],
): Promise<(Refusal | undefined)[]> {
  const counters = groups.flat();
  if (counters.length === 0) return groups.map(() => undefined);
  const now = await readCounts(store, [
    ...counters.map(({ limiter, key }) => ({ counter: limiter, key })),
    ...counters.map(({ failures, key }) => ({ counter: failures, key })),
  ]);
  let at = 0;
  return groups.map((group) => {
    const failureWaits: number[] = [];
    let full = false;
    for (const { limiter } of group) {
      const i = at++;
      const counted = now[i];
      if (!counted || counted.consumedPoints < limiter.points) continue;
      full = true;
      const failed = now[counters.length + i];
      if (failed && failed.consumedPoints >= limiter.points) failureWaits.push(counted.msBeforeNext);
    }
    if (failureWaits.length > 0) return { retryAfter: seconds(failureWaits), inFlight: false };
    return full ? { retryAfter: IN_FLIGHT_RETRY_SECONDS, inFlight: true } : undefined;
  });
}

/**
 * Gives each count back in the window it was counted in, by the store's own record of that window
 * (not by comparing clocks): a window that has ended gave way to a new one, which counts from zero.
 */
export const giveBack = (store: LoginThrottleStore, counted: readonly Counted[]): Promise<unknown> =>
  Promise.all(
    counted.map(({ limiter, key, windowEnds }) =>
      windowEnds === undefined ? undefined : store.giveBack(limiter, key, windowEnds),
    ),
  );

/** Notes a failure on each counter's twin (a count past the limit is still written). */
export async function noteFailures(counted: readonly Counted[]): Promise<void> {
  const settled = await Promise.allSettled(counted.map(({ failures, key }) => failures.consume(key, 1)));
  const fault = settled.find(
    (r): r is PromiseRejectedResult => r.status === 'rejected' && !(r.reason instanceof RateLimiterRes),
  );
  if (fault) throw unavailable(fault.reason);
}

/**
 * Counts the attempt on every counter, after reading them: past a limit it is refused with no
 * write at all. Each count is one atomic upsert in the store, which answers the new total, so
 * concurrent attempts (in this process or another) that all read room each see their own count;
 * one that finds a count past its limit then gives back every count it just made (a key left at
 * zero is removed) and is refused for the attempts in flight, which filled the count meanwhile.
 */
export async function count(store: LoginThrottleStore, counters: readonly Counter[]): Promise<Counted[] | Refusal> {
  const [refusal] = await refusalsNow(store, [counters]);
  if (refusal) return refusal;
  const settled = await Promise.allSettled(counters.map(({ limiter, key }) => limiter.consume(key, 1)));
  const counted = counters.map((c, i) => {
    const result = resOf(settled[i] ?? { status: 'rejected', reason: undefined });
    return { ...c, windowEnds: result && store.windowOf(result) };
  });
  const fault = settled.find(
    (r): r is PromiseRejectedResult => r.status === 'rejected' && !(r.reason instanceof RateLimiterRes),
  );
  if (fault) {
    // The counts cannot be read: fail closed (no attempt is admitted), giving back what was counted.
    await Promise.allSettled([giveBack(store, counted)]);
    throw unavailable(fault.reason);
  }
  if (settled.every((r) => r.status === 'fulfilled')) return counted; // consume() refuses past the limit
  await giveBack(store, counted);
  return { retryAfter: IN_FLIGHT_RETRY_SECONDS, inFlight: true };
}
