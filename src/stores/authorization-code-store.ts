/**
 * Port: authorization codes (RFC 6749 §4.1), kept by their SHA-256 only. A code is spent once: of
 * any number of redemptions, in one process or several, exactly one finds it unspent. Times are
 * epoch seconds.
 */
export interface AuthorizationCodeRecord {
  /** SHA-256 of the code, base64url: the code itself is never stored. */
  readonly codeHash: string;
  readonly clientId: string;
  /** The redirect_uri of the authorization request, as it was sent. */
  readonly redirectUri: string;
  /**
   * PKCE S256 challenge (RFC 7636); null for a code issued without one (a confidential client that
   * may leave PKCE out of an OpenID request with a nonce): its redemption then sends no verifier.
   */
  readonly codeChallenge: string | null;
  readonly scope: readonly string[];
  readonly username: string;
  /**
   * The account the code was issued from (its id) and the account's security version then: the
   * code is redeemed only while that is the account's version. Null for codes that name none.
   */
  readonly accountId: number | null;
  readonly accountVersion: number | null;
  /** The login the code's tokens will belong to (their `sid`). */
  readonly loginId: string;
  /** OpenID Connect: the `nonce` of the authorization request, for its id_token; null when none was sent. */
  readonly nonce: string | null;
  /**
   * When the account's password was checked at the sign-in the code was issued after (epoch
   * seconds): the `auth_time` of its id_token. Null for codes stored before it was recorded.
   */
  readonly authTime: number | null;
  readonly expiresAt: number;
  /** When it was redeemed; null while unspent. */
  readonly usedAt: number | null;
}

/** Spent codes are kept this long past their expiry, so that a replay still revokes its login. */
export const SPENT_CODE_RETENTION_S = 86_400;

export interface AuthorizationCodeStore {
  insert(record: AuthorizationCodeRecord): Promise<void>;
  /**
   * Marks the code spent at `now`, atomically, and answers it as it was before: `usedAt: null`
   * means this call spent it; otherwise it had been spent already. Undefined for an unknown code.
   */
  spend(codeHash: string, now: number): Promise<AuthorizationCodeRecord | undefined>;
  /** Deletes codes expired more than {@link SPENT_CODE_RETENTION_S} before `now`; returns how many. */
  purgeExpired(now: number): Promise<number>;
}
