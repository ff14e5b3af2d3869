/** Port: the accounts (who sign in to the secured service) and their roles. */

export interface Role {
  readonly id: number;
  readonly roleName: string;
  readonly description: string;
}

/** An account of the secured service (one who signs in, not a user-data user), with its BCrypt hash and roles. */
export interface AccountRecord {
  readonly id: number;
  readonly username: string;
  /** BCrypt hash. */
  readonly password: string;
  readonly firstName: string;
  readonly lastName: string;
  /** As given (trimmed), or null when the account has none; unique compared case-insensitively. */
  readonly email: string | null;
  /** Ordered by role id. */
  readonly roles: readonly Role[];
  /** A disabled account cannot log in, and every token of it is refused. */
  readonly enabled: boolean;
  /**
   * Moves with every change that must cut access (see {@link AccountStore}), in the same write:
   * what was minted from a read of the account at an older version is refused.
   */
  readonly securityVersion: number;
  /**
   * When a profile field (username, first or last name, email) last changed, epoch seconds: the
   * OpenID `updated_at` claim. An account stored before it was kept has the time of the upgrade
   * (SQLite migration 021, MongoDB's preparation); 0 when unknown (a record an older release
   * wrote since).
   */
  readonly updatedAt: number;
}

export interface RoleInput {
  readonly roleName: string;
  readonly description?: string;
}

export interface AccountInput {
  readonly username: string;
  /** BCrypt hash, never a plain password. */
  readonly password: string;
  readonly firstName?: string;
  readonly lastName?: string;
  /** Saving an account saves these roles too (created when missing) and replaces its role set. */
  readonly roles: readonly RoleInput[];
  /** Epoch seconds: its `updatedAt` when it is created or its names change. */
  readonly updatedAt: number;
}

/** Why a write to the accounts was refused; nothing was written. */
export type AccountRefusal =
  | 'account.not_found'
  | 'account.username_taken'
  /** Another account has the email, compared case-insensitively. */
  | 'account.email_taken'
  | 'role.unknown'
  | 'role.name_taken'
  /** The change would leave no enabled account holding the guarded role (ADMIN). */
  | 'account.last_admin';

/** A new account; its roles are named and must exist. */
export interface NewAccount {
  readonly username: string;
  /** BCrypt hash, never a plain password. */
  readonly password: string;
  readonly firstName: string;
  readonly lastName: string;
  /** Absent or null: the account has no email. */
  readonly email?: string | null | undefined;
  readonly roles: readonly string[];
  readonly enabled: boolean;
  /** Epoch seconds: when it is made, its first `updatedAt`. */
  readonly updatedAt: number;
}

/**
 * What seeding did with one account of the initial data: `created` it (and recorded it as seeded, in
 * the same write); found it `present` (seeded before, created through administration, or in a store
 * from before seeds were recorded: recorded now); found it `deleted` (seeded once and deleted since:
 * not created again); or found it `unfinished` (MongoDB only: another process has begun seeding it
 * and not finished, because it is doing so now or stopped part-way; not created here).
 */
export type SeedOutcome = 'created' | 'present' | 'deleted' | 'unfinished';

/** What an administrator may change of an account; an absent field is left as it is. */
export interface AccountChanges {
  readonly firstName?: string | undefined;
  readonly lastName?: string | undefined;
  /** A new email, or null to clear it. */
  readonly email?: string | null | undefined;
  /** Replaces the role set; every name must exist. */
  readonly roles?: readonly string[] | undefined;
  readonly enabled?: boolean | undefined;
}

/**
 * Whether `changes` change a profile field of `before` (first or last name, email, compared as
 * stored: an email in another case is a change): the writes that do move `updatedAt`.
 */
export const changesProfile = (before: AccountRecord, changes: AccountChanges): boolean =>
  (changes.firstName !== undefined && changes.firstName !== before.firstName) ||
  (changes.lastName !== undefined && changes.lastName !== before.lastName) ||
  (changes.email !== undefined && changes.email !== before.email);

/** A page of accounts ordered by id: those after `afterId` whose username starts with `usernamePrefix`. */
export interface AccountQuery {
  readonly usernamePrefix: string;
  readonly afterId: number;
  readonly limit: number;
}

export interface AccountStore {
  findByUsername(username: string): Promise<AccountRecord | undefined>;
  /** Every account with its roles, ordered by id. */
  listAll(): Promise<readonly AccountRecord[]>;
  /**
   * A number that changes whenever an account, a role or an account's roles change, whichever process
   * made the change: a listing read after the number is current until the number moves.
   */
  changeCount(): Promise<number>;
  /** Inserts or updates (by role name). */
  saveRole(role: RoleInput): Promise<Role>;
  /**
   * Inserts or updates (by username), in one transaction with its roles; `updatedAt` is written
   * when the account is made or its names change.
   */
  saveAccount(account: AccountInput): Promise<AccountRecord>;
  findById(id: number): Promise<AccountRecord | undefined>;
  /** At most `limit` accounts of the query, ordered by id. */
  page(query: AccountQuery): Promise<readonly AccountRecord[]>;
  /** Every role, ordered by id. */
  listRoles(): Promise<readonly Role[]>;
  /** Creates a role; refused when the name is taken. */
  createRole(role: { roleName: string; description: string }): Promise<Role | AccountRefusal>;
  /**
   * Creates an account with its roles, in one write; refused when the username is taken (checked
   * first), the email is another account's (compared case-insensitively) or a role unknown.
   */
  createAccount(account: NewAccount): Promise<AccountRecord | AccountRefusal>;
  /**
   * Applies one account of the initial data once per store: the store records each username it
   * seeded, and the record outlives the account, so an account seeded once and deleted since is not
   * created again (`deleted`), whichever process starts next. A username not yet recorded is
   * recorded, and created when missing, as one step (a transaction on SQLite; on MongoDB the record
   * is written first, and only the process whose write made it creates the account): processes
   * starting together create it once. An existing account is never changed. Refused `role.unknown`
   * (nothing recorded) when a role it names does not exist.
   */
  seedAccount(account: NewAccount): Promise<SeedOutcome | AccountRefusal>;
  /**
   * Changes an account in one write. Refused when it would leave no enabled account holding
   * `guardedRole`, checked inside the write so that two concurrent changes cannot both pass, and
   * when the new email is another account's (compared case-insensitively). An email change alone
   * does not move the security version.
   * A change of the role set, or of `enabled`, moves the security version in the same write; when
   * the account stays enabled (a role change), its live logins are carried to the new version in
   * that write too: they go on, and their next refresh carries the new roles. A change of a profile
   * field ({@link changesProfile}) sets `updatedAt` to `at` (epoch seconds) in the same write; a
   * change of roles or `enabled` alone, or a field set to the value it has, leaves it.
   */
  updateAccount(
    id: number,
    changes: AccountChanges,
    guardedRole: string,
    at: number,
  ): Promise<AccountRecord | AccountRefusal>;
  /**
   * Replaces the BCrypt hash and moves the security version in the same write; only the login
   * `keepLogin` (the account's own, when it changes its own password) is carried to the new version.
   * With `atVersion`, only while the account is at that version (else `account.not_found`, nothing
   * written): a change made since the caller read it wins.
   */
  setPassword(
    id: number,
    hash: string,
    keepLogin?: string,
    atVersion?: number,
  ): Promise<AccountRecord | AccountRefusal>;
  /**
   * Replaces the account's BCrypt hash with `hash`, another hash of the same password (at another
   * cost), only while the stored hash is still `compared`, the one its password was checked against:
   * one conditional write, so a password set meanwhile, in any process, is never overwritten. The
   * security version does not move (nothing minted from the account is refused for it); the change
   * count does. True when written; false when the hash had changed or the account is gone.
   */
  replaceHash(id: number, compared: string, hash: string): Promise<boolean>;
  /** Moves the security version alone: every login of the account ends, every token minted before is refused. */
  endLogins(id: number): Promise<AccountRecord | AccountRefusal>;
  /**
   * Deletes the account (its role links with it); answers what was deleted. Guarded as updateAccount.
   * Its id is never given to another account, and everything minted from it is refused.
   */
  deleteAccount(id: number, guardedRole: string): Promise<AccountRecord | AccountRefusal>;
}
