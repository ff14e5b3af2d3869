/** Port: refresh tokens, kept only as hashes. Times are epoch seconds. */

export interface RefreshTokenRecord {
  /** SHA-256 of the token, base64url. */
  readonly tokenHash: string;
  /** Every token of one login shares a family. */
  readonly familyId: string;
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
}

export interface RefreshTokenStore {
  insert(record: RefreshTokenRecord): Promise<void>;
  find(tokenHash: string): Promise<RefreshTokenRecord | undefined>;
  /**
   * Atomically marks `oldHash` used and inserts its successor. False (and nothing written) when
   * `oldHash` was already used or revoked: the caller then treats it as reuse.
   */
  rotate(oldHash: string, next: RefreshTokenRecord, at: number): Promise<boolean>;
  /**
   * The latest access-token `exp` recorded in the family (see {@link RefreshTokenRecord.accessExpiresAt});
   * undefined when the family has no token left or one without the record.
   */
  accessHorizon(familyId: string): Promise<number | undefined>;
  /** Revokes every live token of the family; returns how many. */
  revokeFamily(familyId: string, at: number): Promise<number>;
  /** Deletes tokens that expired before `now`; returns how many. */
  purgeExpired(now: number): Promise<number>;
}
