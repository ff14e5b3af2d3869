/**
 * Port: the sign-in sessions of the authorization endpoint. A person who signed in there carries a
 * session cookie; its value is never stored, only its hash (`idHash`), so a copy of the store signs
 * no one in. A session belongs to one account at the security version it had when the password was
 * checked: a session whose account has moved on since is over, whichever process moved it, because
 * every use reads the record and the account from the store. Times are epoch seconds.
 */

export interface SessionRecord {
  /** SHA-256 of the cookie's value, base64url. */
  readonly idHash: string;
  readonly accountId: number;
  /** The account's security version when the password was checked. */
  readonly accountVersion: number;
  /** When the password was checked: the `auth_time` of what the session signs in. */
  readonly authTime: number;
  readonly createdAt: number;
  /** When the session ends by itself. */
  readonly expiresAt: number;
  /** When it was ended (signed out), or null while it lasts. */
  readonly endedAt: number | null;
}

export interface SessionStore {
  insert(record: SessionRecord): Promise<void>;
  /** The session whose cookie hashes to `idHash`, ended or not; undefined when none (or purged). */
  find(idHash: string): Promise<SessionRecord | undefined>;
  /** Ends the session at `at`; false when there is none or it was ended already. */
  end(idHash: string, at: number): Promise<boolean>;
  /** Ends every session of the account still going at `at`; returns how many. */
  endForAccount(accountId: number, at: number): Promise<number>;
  /** The account's sessions neither ended nor expired at `at`, newest first. */
  listForAccount(accountId: number, at: number): Promise<readonly SessionRecord[]>;
  /** Forgets sessions expired, or ended, before `now`; returns how many. */
  purgeExpired(now: number): Promise<number>;
}
