/**
 * The one schedule for deleting what has expired: TokenActor's refresh tokens, authorization codes
 * and revocation entries, and the login throttle's ended windows (swept by the composition root).
 * What has expired is already refused by its own expiry; a purge only keeps the stores small, for
 * which hourly is often enough.
 */
export const PURGE_EVERY_MS = 3_600_000;

/**
 * Calls `tick` every {@link PURGE_EVERY_MS}, without keeping the process alive: an actor's purge,
 * where `tick` is a message to itself and a failing purge is a crash its supervision answers.
 * Returns what stops it.
 */
export function everyPurge(tick: () => void): () => void {
  const timer = setInterval(tick, PURGE_EVERY_MS).unref();
  return () => clearInterval(timer);
}

/**
 * Runs `purge` on the same schedule, for work beside any actor: a purge that fails is handed to
 * `onError` (to be logged), and the next one runs as planned. Returns what stops it.
 */
export function purgeHourly(purge: () => Promise<unknown>, onError: (error: unknown) => void): () => void {
  return everyPurge(() => {
    purge().catch(onError);
  });
}
