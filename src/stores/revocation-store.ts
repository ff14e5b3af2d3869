/**
 * Port: revoked access tokens (by `jti`) and revoked logins (by login id: every access token of
 * the login), each kept until no token it covers can still be valid. Times are epoch seconds.
 * Several processes add to one store; each reads what the others added with {@link RevocationStore.since}.
 */
export interface Revocation {
  readonly kind: 'token' | 'login' | 'account';
  /** A token's `jti`, a login's id, or an account's id (decimal). */
  readonly id: string;
  readonly expiresAt: number;
  /** For a token: the login it was issued in (its `sid`), when it has one. */
  readonly loginId?: string | undefined;
  /**
   * For an account: every access token minted from a read of it at a security version below this
   * is refused (a deleted account's entry refuses every version). Adding it again keeps the higher.
   */
  readonly belowVersion?: number | undefined;
}

export interface RevocationStore {
  /**
   * Records a revocation durably. Adding it again with a later `expiresAt` keeps the later one;
   * an earlier one changes nothing. Once this resolves, {@link RevocationStore.has} answers true in
   * every process, and other processes read it again with {@link RevocationStore.since}.
   */
  add(revocation: Revocation): Promise<void>;
  /**
   * Whether the revocation is recorded and unexpired at `now`, read from the store itself (on
   * MongoDB from the primary): for decisions that must not wait for {@link RevocationStore.since}.
   */
  has(kind: Revocation['kind'], id: string, now: number): Promise<boolean>;
  /**
   * The unexpired revocations (`expiresAt >= now`) added after `cursor` (0: all of them), in the
   * order they were added, and the cursor to read from next time. Expired ones are not read.
   */
  since(cursor: number, now: number): Promise<{ readonly revocations: readonly Revocation[]; readonly cursor: number }>;
  /**
   * False when nothing can have been added by another process since the last call: a cheap check
   * made before every read of the list. May answer true needlessly, never false wrongly.
   */
  changed(): boolean;
  /**
   * True when {@link RevocationStore.changed} answers true on its first call after any other
   * process's write (SQLite: `PRAGMA data_version`); false when it looks only every so often
   * (MongoDB: `security.revocation-sync-ms`), so that another process's entry may be read late.
   */
  readonly seesEveryWrite: boolean;
  /** How many access tokens of the login were revoked one by one and are still live at `now`. */
  tokensOfLogin(loginId: string, now: number): Promise<number>;
  /** Deletes entries that expired before `now`; returns how many. */
  purgeExpired(now: number): Promise<number>;
}
