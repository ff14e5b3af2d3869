/** AccountActor's reply values, apart from its protocol (which exports them). */

/** An account as an administrator sees it: never its password or hash. */
export interface AccountSummary {
  readonly id: number;
  readonly username: string;
  readonly firstName: string;
  readonly lastName: string;
  /** Null when the account has none. */
  readonly email: string | null;
  readonly roles: readonly string[];
  readonly enabled: boolean;
}

export interface AccountPage {
  readonly items: readonly AccountSummary[];
  /** The id to continue after, or null on the last page. */
  readonly nextAfterId: number | null;
}

/** A live login of an account; times are ISO 8601. */
export interface LoginView {
  /** The login's id, named as on the wire (`/sessions/:sid`, a token's `sid` claim). */
  readonly sid: string;
  readonly clientId: string;
  readonly createdAt: string;
  readonly lastRefreshedAt: string;
  readonly expiresAt: string;
}

export interface RoleView {
  readonly id: number;
  readonly roleName: string;
  readonly description: string;
}

/** An account as the original service's listing (`/app/listAll`) shows it: no `enabled`. */
export interface AccountView {
  readonly id: number;
  readonly username: string;
  /** BCrypt hash: present only when the request asked for it. */
  readonly password?: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly roles: readonly RoleView[];
}

export interface RoleSummary {
  readonly roleName: string;
  readonly description: string;
}
