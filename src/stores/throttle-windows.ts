/**
 * The exact window of each count the login throttle makes. rate-limiter-flexible's store limiters
 * (pinned version) build every result in `_getRateLimiterRes` from the row or document their
 * atomic write returned; an adapter's limiter overrides it to note that row's stored expiry, so a
 * give-back can name the very window its count was made in instead of estimating it from clocks.
 */
import type { RateLimiterRes } from 'rate-limiter-flexible';

/** The library's hook, which its typings leave out. */
export interface ResultHook {
  _getRateLimiterRes(rlKey: string, changedPoints: number, result: unknown): RateLimiterRes;
}

/** Results and the end of the window (epoch ms, as stored) each was counted in. */
export type Windows = WeakMap<RateLimiterRes, number>;

/** Notes `res`'s window, when the stored row has one (a finite counter always has). */
export function noteWindow(
  windows: Windows,
  res: RateLimiterRes,
  expire: number | Date | null | undefined,
): RateLimiterRes {
  if (expire !== null && expire !== undefined) windows.set(res, expire instanceof Date ? expire.getTime() : expire);
  return res;
}
