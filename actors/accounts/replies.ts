/** AccountActor's replies and their values, apart from its protocol (which exports them). */
import type { Reply } from '../../src/messaging/reply.ts';
import type { Throttled } from '../../src/security/login-attempts.ts';
import type { AccountRefusal } from '../../src/stores/account-store.ts';
import type { ProfileSource } from '../../src/security/claims.ts';

export type ErrorCode =
  | 'account.not_found' // no account of that id (or, for an account's own password, of that username)
  | 'account.username_taken' // another account has the username
  | 'account.username_reserved' // the username is a registered client's id (canonical forms): one namespace of subjects
  | 'account.email_taken' // another account has the email (compared case-insensitively)
  | 'account.last_admin' // the change would leave no enabled ADMIN
  | 'role.unknown' // a role name that is not a role
  | 'role.name_taken' // another role has the name
  | 'password.invalid' // fails the password policy (src/security/password-policy.ts)
  | 'password.incorrect' // the current password given does not match
  | 'login.not_found'; // no live login of the account with that id

/** A write the account store refused (src/stores/account-store.ts): nothing was written. */
type Refused = AccountRefusal;

export type AccountsReply = Reply<readonly AccountView[]>;
export type FindReply = Reply<AccountPage>;
export type GetReply = Reply<AccountSummary, 'account.not_found'>;
export type CreateReply = Reply<AccountSummary, Refused | 'account.username_reserved' | 'password.invalid'>;
export type UpdateReply = Reply<AccountSummary, Refused>;
export type SetPasswordReply = Reply<null, Refused | 'password.invalid'>;
export type DeleteReply = Reply<null, Refused>;
export type ListLoginsReply = Reply<readonly LoginView[], 'account.not_found'>;
export type EndLoginsReply = Reply<null, Refused | 'login.not_found'>;
export type ClearLockoutReply = Reply<null, 'account.not_found'>;
export type ListRolesReply = Reply<readonly RoleSummary[]>;
export type CreateRoleReply = Reply<RoleSummary, Refused>;
/** The answer to an account's own password change. */
export type OwnPasswordReply = Reply<null, Refused | 'password.invalid' | 'password.incorrect'> | Throttled;
/** The profile an account's own access token reads. */
export type ProfileReply = Reply<AccountProfile, 'account.not_found'>;

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

/**
 * What an account's own access token may read of it (OpenID UserInfo, as its scopes allow): never
 * its roles, password or security version.
 */
export type AccountProfile = ProfileSource;

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
