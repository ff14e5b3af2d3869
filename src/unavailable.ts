/**
 * The store cannot be reached (a network or server-selection failure): worth retrying later.
 * Every adapter rejects with it for that case, and supervision answers the sender `unavailable`
 * (HTTP 503 with Retry-After) instead of `internal`.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}
