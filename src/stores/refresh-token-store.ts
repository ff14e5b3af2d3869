/**
 * Port: the logins of accounts, as the records of their refresh tokens, kept only as hashes. Times
 * are epoch seconds.
 *
 * Every login of an account is recorded here, so that it is found by account (and client), bounded
 * and ended with the others: a login of a client with the refresh_token grant by its refresh
 * tokens; a login of a client without it by one record keyed by a value that is the hash of no
 * token (`tokenlessLoginKey` in src/security/refresh-tokens.ts), expiring with its one access token
 * (`expiresAt` = `accessExpiresAt`). Such a record can be listed, counted and revoked like any
 * other, and never presented: the refresh grant, revocation and introspection find records only
 * by the hash of a token presented.
 */

/**
 * Spent (rotated) tokens kept per login for reuse detection: presenting one of the newest
 * `SPENT_WINDOW` ends the login; an older one is only unknown (refused, the login untouched).
 */
export const SPENT_WINDOW = 16;
/** Seconds a revoked login's tokens stay stored after its revocation (then they are only unknown). */
export const REVOKED_RETENTION_S = 86_400;

export interface RefreshTokenRecord {
  /** SHA-256 of the token, base64url. */
  readonly tokenHash: string;
  /** The login the token belongs to: every token of one login shares it (the `sid` of its access tokens). */
  readonly loginId: string;
  readonly clientId: string;
  readonly username: string;
  readonly scope: readonly string[];
  readonly issuedAt: number;
  readonly expiresAt: number;
  readonly usedAt: number | null;
  readonly revokedAt: number | null;
  /**
   * The latest `exp` (by the tokens' own claims) of the access tokens issued in the login up to
   * and with this refresh token: how long a revocation of the login must refuse them. Null for
   * tokens stored before it was recorded.
   */
  readonly accessExpiresAt: number | null;
  /** 0 for the login's first refresh token, one more with each rotation. */
  readonly generation: number;
  /**
   * The account the login belongs to (its id: a username created again is another account) and
   * the account's security version the login was minted from or carried to; the login lives only
   * while that is the account's version. Null for records that name no account (refused by every grant).
   */
  readonly accountId: number | null;
  readonly accountVersion: number | null;
  /**
   * When the account's password was checked for a login begun with an authorization code (epoch
   * seconds), carried by every rotation: the `auth_time` of the id_tokens its refreshes issue.
   * Null for a login of the password grant, and for records stored before it was recorded.
   */
  readonly authTime: number | null;
}

/**
 * What a rotation did: `rotated`; `spent`, the token was already used (reuse); `stale`, nothing
 * written because it was revoked, or the account is no longer enabled at the successor's version.
 */
export type Rotation = 'rotated' | 'spent' | 'stale';

/** A live login of an account, as its records show it (epoch seconds). */
export interface LoginRecord {
  /** The login's id (the `sid` of its access tokens). */
  readonly loginId: string;
  readonly clientId: string;
  /** The oldest token of the login still stored: the login itself, unless it rotated past the spent window. */
  readonly createdAt: number;
  /** When its live refresh token was issued: the last refresh, or the login (always, for a login without refresh tokens). */
  readonly refreshedAt: number;
  /** When its live refresh token expires; for a login without refresh tokens, when its access token does. */
  readonly expiresAt: number;
}

export interface RefreshTokenStore {
  /**
   * Stores the record of a new login (its first refresh token, or its one record without any).
   * For a record naming an account, only while that account is enabled at the record's version,
   * checked with the write (false: nothing written; on MongoDB, written and then revoked).
   */
  insert(record: RefreshTokenRecord): Promise<boolean>;
  find(tokenHash: string): Promise<RefreshTokenRecord | undefined>;
  /**
   * Atomically marks `oldHash` used and inserts its successor, which names the account and version
   * the old token had. `spent` (nothing written) when `oldHash` is unknown or was already used: the
   * caller then treats it as reuse; `stale` (nothing written) when it was revoked since, or its
   * version is not `next.accountVersion`, or the account is not enabled at it: the caller reads again. Spent
   * tokens of the login beyond the newest {@link SPENT_WINDOW} are deleted.
   */
  rotate(oldHash: string, next: RefreshTokenRecord, at: number): Promise<Rotation>;
  /**
   * The latest access-token `exp` recorded in the login (see {@link RefreshTokenRecord.accessExpiresAt});
   * undefined when the login has no token left or one without the record.
   */
  accessHorizon(loginId: string): Promise<number | undefined>;
  /** Revokes every live token of the login; returns how many. */
  revokeLogin(loginId: string, at: number): Promise<number>;
  /**
   * The logins of the account (by id: a username created again is another account) with a live
   * token at `now`, least recently refreshed first.
   */
  liveLogins(accountId: number, now: number): Promise<readonly string[]>;
  /** The logins of the account with a live token at `now`, as {@link liveLogins} orders them. */
  loginsOf(accountId: number, now: number): Promise<readonly LoginRecord[]>;
  /**
   * Deletes tokens that expired before `now`, and those of logins revoked more than
   * {@link REVOKED_RETENTION_S} before it; returns how many.
   */
  purgeExpired(now: number): Promise<number>;
}
