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
}

export interface RefreshTokenStore {
  insert(record: RefreshTokenRecord): Promise<void>;
  find(tokenHash: string): Promise<RefreshTokenRecord | undefined>;
  /**
   * Atomically marks `oldHash` used and inserts its successor. False (and nothing written) when
   * `oldHash` was already used or revoked: the caller then treats it as reuse.
   */
  rotate(oldHash: string, next: RefreshTokenRecord, at: number): Promise<boolean>;
  /** Revokes every live token of the family; returns how many. */
  revokeFamily(familyId: string, at: number): Promise<number>;
  /** Deletes tokens that expired before `now`; returns how many. */
  purgeExpired(now: number): Promise<number>;
}
