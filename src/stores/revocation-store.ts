/**
 * Port: revoked access tokens by `jti`, and revoked logins by id (every access token of the login),
 * each kept until no token it covers can still be valid. Times are epoch seconds.
 */
export interface Revoked {
  /** A token's `jti`, or a login's id. */
  readonly id: string;
  readonly expiresAt: number;
}

export interface RevocationStore {
  /** Refuses one access token. */
  add(token: Revoked): void;
  /** Refuses every access token of a login. */
  addLogin(login: Revoked): void;
  /** Every token entry that has not expired at `now`. */
  live(now: number): readonly Revoked[];
  /** Every login entry that has not expired at `now`. */
  liveLogins(now: number): readonly Revoked[];
  /** Deletes entries that expired before `now`; returns how many. */
  purgeExpired(now: number): number;
}
