/** Port: the accounts (the logins of the secured service) and their roles. */

export interface Role {
  readonly id: number;
  readonly roleName: string;
  readonly description: string;
}

/** An account of the secured service (a login, not a user-data user), with its BCrypt hash and roles. */
export interface AccountRecord {
  readonly id: number;
  readonly username: string;
  /** BCrypt hash. */
  readonly password: string;
  readonly firstName: string;
  readonly lastName: string;
  /** Ordered by role id. */
  readonly roles: readonly Role[];
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
  /** Saving a user saves these roles too (created when missing) and replaces its role set. */
  readonly roles: readonly RoleInput[];
}

export interface CredentialStore {
  findByUsername(username: string): Promise<AccountRecord | undefined>;
  /** Every user with its roles, ordered by id. */
  listAll(): Promise<readonly AccountRecord[]>;
  /**
   * A number that changes whenever a user, a role or a user's roles change, whichever process
   * made the change: a listing read after the number is current until the number moves.
   */
  changeCount(): Promise<number>;
  /** Inserts or updates (by role name). */
  saveRole(role: RoleInput): Promise<Role>;
  /** Inserts or updates (by username), in one transaction with its roles. */
  saveUser(user: AccountInput): Promise<AccountRecord>;
}
