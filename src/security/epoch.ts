/**
 * Epoch seconds, the unit of every time a token, a refresh-token record, a code or a revocation
 * carries: the one place a millisecond clock becomes seconds (rounded down, as JWT's NumericDate).
 */
export const epochSeconds = (ms: number = Date.now()): number => Math.floor(ms / 1000);

/** A seconds clock over a millisecond one (`Date.now` by default): what actors with an injectable clock keep. */
export const secondsClock =
  (nowMs: () => number = Date.now): (() => number) =>
  () =>
    epochSeconds(nowMs());
