/** Port: revoked access tokens by `jti`, kept until the token would have expired. Times are epoch seconds. */
export interface RevokedToken {
  readonly jti: string;
  readonly expiresAt: number;
}

export interface RevocationStore {
  add(token: RevokedToken): void;
  /** Every entry that has not expired at `now`. */
  live(now: number): readonly RevokedToken[];
  /** Deletes entries that expired before `now`; returns how many. */
  purgeExpired(now: number): number;
}
