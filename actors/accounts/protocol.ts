/**
 * AccountActor: the accounts (those who sign in to the secured service, not the user-data
 * service's users), their roles, passwords, live logins and security versions, and the listing of
 * the original service. Build messages with the functions below and send them with `ask`; `actor`
 * names who acts (an administrator's username), for the event log.
 */
import { z } from 'zod';
import type { MessageSchemas } from '../../src/fields.ts';
import type { Request } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import type { Throttled } from '../../src/security/login-attempts.ts';
import { newUsername } from '../../src/security/usernames.ts';

export type ErrorCode =
  | 'account.not_found' // no account of that id (or, for an account's own password, of that username)
  | 'account.username_taken' // another account has the username
  | 'account.username_reserved' // the username is a registered client's id (canonical forms): one namespace of subjects
  | 'account.last_admin' // the change would leave no enabled ADMIN
  | 'role.unknown' // a role name that is not a role
  | 'role.name_taken' // another role has the name
  | 'password.invalid' // fails the password policy (src/security/password-policy.ts)
  | 'password.incorrect' // the current password given does not match
  | 'login.not_found'; // no live login of the account with that id

/** The role whose last enabled holder cannot be disabled, deleted or demoted. */
export const ADMIN_ROLE = 'ADMIN';

/** An account as an administrator sees it: never its password or hash. */
export interface AccountSummary {
  readonly id: number;
  readonly username: string;
  readonly firstName: string;
  readonly lastName: string;
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

export type AccountsReply = Reply<readonly AccountView[]>;

export interface RoleSummary {
  readonly roleName: string;
  readonly description: string;
}

type Sender<T> = Ref<Reply<T, ErrorCode>>;
type Acting = { readonly actor: string };

export type Command =
  | { readonly type: 'ListUsers'; readonly includePasswordHash: boolean; readonly sender: Ref<AccountsReply> }
  | {
      readonly type: 'FindAccounts';
      readonly usernamePrefix: string;
      readonly afterId: number;
      readonly limit: number;
      readonly sender: Sender<AccountPage>;
    }
  | { readonly type: 'GetAccount'; readonly id: number; readonly sender: Sender<AccountSummary> }
  | (Acting & {
      readonly type: 'CreateAccount';
      readonly username: string;
      readonly password: string;
      readonly firstName: string;
      readonly lastName: string;
      readonly roles: readonly string[];
      readonly sender: Sender<AccountSummary>;
    })
  | (Acting & {
      readonly type: 'UpdateAccount';
      readonly id: number;
      readonly firstName?: string | undefined;
      readonly lastName?: string | undefined;
      readonly roles?: readonly string[] | undefined;
      readonly enabled?: boolean | undefined;
      readonly sender: Sender<AccountSummary>;
    })
  | (Acting & {
      readonly type: 'SetPassword';
      readonly id: number;
      readonly password: string;
      readonly sender: Sender<null>;
    })
  | (Acting & { readonly type: 'DeleteAccount'; readonly id: number; readonly sender: Sender<null> })
  | { readonly type: 'ListLogins'; readonly id: number; readonly sender: Sender<readonly LoginView[]> }
  | (Acting & {
      readonly type: 'EndLogins';
      readonly id: number;
      /** One login; undefined: every login of the account. */
      readonly sid?: string | undefined;
      readonly sender: Sender<null>;
    })
  | (Acting & { readonly type: 'ClearLockout'; readonly id: number; readonly sender: Sender<null> })
  | { readonly type: 'ListRoles'; readonly sender: Sender<readonly RoleSummary[]> }
  | (Acting & {
      readonly type: 'CreateRole';
      readonly roleName: string;
      readonly description: string;
      readonly sender: Sender<RoleSummary>;
    })
  | {
      readonly type: 'ChangeOwnPassword';
      /**
       * The account, as the request's access token names it (`account_id`), at the security
       * version the token was minted from: a change made since (an administrator's reset) wins.
       */
      readonly accountId: number;
      readonly accountVersion: number;
      /** The login the request came with: it stays, the account's other logins end. */
      readonly sid: string | undefined;
      readonly currentPassword: string;
      readonly newPassword: string;
      /**
       * Where the request comes from: the current password is counted by the login throttle as a
       * login of the account from there. Undefined: `UNADDRESSED` (the REPL).
       */
      readonly address?: string | undefined;
      /** Past the login throttle's limits: {@link Throttled}, before any password is compared. */
      readonly sender: Ref<OwnPasswordReply>;
    };

/** The answer to an account's own password change. */
export type OwnPasswordReply = Reply<null, ErrorCode> | Throttled;

type Fields<K extends Command['type']> = Omit<Extract<Command, { type: K }>, 'type' | 'sender'>;
const build =
  <K extends Command['type']>(type: K) =>
  <R>(fields: Fields<K>): Request<Command, Reply<R, ErrorCode>> =>
  (sender) =>
    ({ ...fields, type, sender }) as unknown as Command;

/** Every account with its roles, ordered by id; the BCrypt hashes only when asked for, explicitly. */
export const listAccounts =
  (options: { includePasswordHash?: boolean } = {}): Request<Command, AccountsReply> =>
  (sender) => ({ type: 'ListUsers', includePasswordHash: options.includePasswordHash === true, sender });

/** A page of accounts by id, those after `afterId` (0: from the first) whose username starts with `usernamePrefix`. */
export const findAccounts = (p: { usernamePrefix?: string; afterId?: number; limit?: number } = {}) =>
  build('FindAccounts')<AccountPage>({
    usernamePrefix: p.usernamePrefix ?? '',
    afterId: p.afterId ?? 0,
    limit: p.limit ?? 20,
  });
/** One account, without its hash. */
export const getAccount = (p: Fields<'GetAccount'>) => build('GetAccount')<AccountSummary>(p);
/** Creates an account; the password is hashed by the actor (BCrypt, on the worker pool). */
export const createAccount = (p: {
  actor: string;
  username: string;
  password: string;
  firstName?: string;
  lastName?: string;
  roles: readonly string[];
}) => build('CreateAccount')<AccountSummary>({ firstName: '', lastName: '', ...p });
/** Changes names, roles or `enabled`; disabling ends every login, a role change refuses older access tokens. */
export const updateAccount = (p: Fields<'UpdateAccount'>) => build('UpdateAccount')<AccountSummary>(p);
/** Sets a new password and ends every login of the account. */
export const setPassword = (p: Fields<'SetPassword'>) => build('SetPassword')<null>(p);
/** Deletes the account and ends every login of it. */
export const deleteAccount = (p: Fields<'DeleteAccount'>) => build('DeleteAccount')<null>(p);
/** The account's live logins. */
export const listLogins = (p: Fields<'ListLogins'>) => build('ListLogins')<readonly LoginView[]>(p);
/** Ends one login of the account (`sid`), or every one. */
export const endLogins = (p: Fields<'EndLogins'>) => build('EndLogins')<null>(p);
/** Forgets the failed logins counted against the account. */
export const clearLockout = (p: Fields<'ClearLockout'>) => build('ClearLockout')<null>(p);
/** Every role, by id. */
export const listRoles = () => build('ListRoles')<readonly RoleSummary[]>({});
/** Creates a role. */
export const createRole = (p: { actor: string; roleName: string; description?: string }) =>
  build('CreateRole')<RoleSummary>({ description: '', ...p });
/**
 * An account's own new password, given the current one; the account's other logins end. Throttled as a
 * login of the account from `address` (none from the REPL).
 */
export const changeOwnPassword =
  (p: Fields<'ChangeOwnPassword'>): Request<Command, OwnPasswordReply> =>
  (sender) => ({ ...p, type: 'ChangeOwnPassword', sender });

/**
 * The fields of the account messages as every caller must give them: HTTP builds its request
 * schemas from these, and the REPL checks its messages with them ({@link schemas}).
 */
export const fields = {
  id: z.number().int().positive(),
  /** Who acts: an administrator's username, for the event log. */
  actor: z.string().min(1),
  username: newUsername,
  /** A password as given: the policy (src/security/password-policy.ts) is AccountActor's to apply. */
  password: z.string(),
  /** A first or a last name. */
  name: z.string().max(255),
  /** An account's role names, each checked against the roles by AccountActor. */
  roles: z.array(z.string().min(1).max(64)).max(64),
  roleName: z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'must be 1 to 64 of A-Z, 0-9 and _, starting with a letter'),
  /** A role's description. */
  description: z.string().max(255),
} as const;

const { id, actor, password, name, roles, roleName } = fields;

/**
 * The fields of each message, checked by the REPL before it sends one. A new message kind without
 * a schema fails to compile.
 */
export const schemas = {
  ListUsers: z.strictObject({ includePasswordHash: z.boolean().default(false) }),
  FindAccounts: z.strictObject({
    usernamePrefix: z.string(),
    afterId: z.number().int().min(0),
    limit: z.number().int().min(1).max(100),
  }),
  GetAccount: z.strictObject({ id }),
  CreateAccount: z.strictObject({
    actor,
    username: fields.username,
    password,
    firstName: name,
    lastName: name,
    roles,
  }),
  UpdateAccount: z.strictObject({
    actor,
    id,
    firstName: name.optional(),
    lastName: name.optional(),
    roles: roles.optional(),
    enabled: z.boolean().optional(),
  }),
  SetPassword: z.strictObject({ actor, id, password }),
  DeleteAccount: z.strictObject({ actor, id }),
  ListLogins: z.strictObject({ id }),
  EndLogins: z.strictObject({ actor, id, sid: z.string().optional() }),
  ClearLockout: z.strictObject({ actor, id }),
  ListRoles: z.strictObject({}),
  CreateRole: z.strictObject({ actor, roleName, description: fields.description }),
  ChangeOwnPassword: z.strictObject({
    accountId: id,
    accountVersion: z.number().int().min(0),
    sid: z.string().optional(),
    currentPassword: password,
    newPassword: password,
    address: z.string().optional(),
  }),
} as const satisfies MessageSchemas<Command>;

/**
 * One call per message kind, as a REPL user would type it (`await ask(accounts, <example>)`); the
 * REPL's `.protocol accounts` lists them. A new message kind without an example fails to compile.
 */
export const examples = {
  ListUsers: 'Accounts.listAccounts()',
  FindAccounts: "Accounts.findAccounts({ usernamePrefix: 'j', limit: 10 })",
  GetAccount: 'Accounts.getAccount({ id: 2 })',
  CreateAccount:
    "Accounts.createAccount({ actor: 'admin', username: 'jane', password: '<8 characters to 72 bytes, not a common one>', roles: ['USER'] })",
  UpdateAccount: "Accounts.updateAccount({ actor: 'admin', id: 3, enabled: false })",
  SetPassword:
    "Accounts.setPassword({ actor: 'admin', id: 3, password: '<8 characters to 72 bytes, not a common one>' })",
  DeleteAccount: "Accounts.deleteAccount({ actor: 'admin', id: 3 })",
  ListLogins: 'Accounts.listLogins({ id: 2 })',
  EndLogins: "Accounts.endLogins({ actor: 'admin', id: 2 })",
  ClearLockout: "Accounts.clearLockout({ actor: 'admin', id: 2 })",
  ListRoles: 'Accounts.listRoles()',
  CreateRole: "Accounts.createRole({ actor: 'admin', roleName: 'AUDITOR', description: 'reads logs' })",
  ChangeOwnPassword:
    "Accounts.changeOwnPassword({ accountId: 3, accountVersion: 0, sid: undefined, currentPassword: '<now>', newPassword: '<new>' })",
} as const satisfies Record<Command['type'], string>;
