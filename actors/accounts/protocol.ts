/**
 * AccountActor: the accounts (those who sign in to the secured service, not the user-data
 * service's users), their roles, passwords, live logins and security versions, and the listing of
 * the original service. Build messages with the functions below and send them with `ask`; `actor`
 * names who acts (an administrator's username), for the event log.
 */
import { z } from 'zod';
import { email, type MessageExamples, type MessageSchemas } from '../../src/fields.ts';
import type { MessageOf, RequestOf } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import { newUsername } from '../../src/security/usernames.ts';
import type {
  AccountsReply,
  ClearLockoutReply,
  CreateReply,
  CreateRoleReply,
  DeleteReply,
  EndLoginsReply,
  FindReply,
  GetReply,
  ListLoginsReply,
  ListRolesReply,
  OwnPasswordReply,
  ProfileReply,
  SetPasswordReply,
  UpdateReply,
} from './replies.ts';

/** The role whose last enabled holder cannot be disabled, deleted or demoted. */
export const ADMIN_ROLE = 'ADMIN';

export type * from './replies.ts';

type Acting = { readonly actor: string };

export type Command =
  | { readonly type: 'ListAccounts'; readonly includePasswordHash: boolean; readonly sender: Ref<AccountsReply> }
  | {
      readonly type: 'FindAccounts';
      readonly usernamePrefix: string;
      readonly afterId: number;
      readonly limit: number;
      readonly sender: Ref<FindReply>;
    }
  | { readonly type: 'GetAccount'; readonly id: number; readonly sender: Ref<GetReply> }
  | (Acting & {
      readonly type: 'CreateAccount';
      readonly username: string;
      readonly password: string;
      readonly firstName: string;
      readonly lastName: string;
      /** Null: the account has no email. */
      readonly email: string | null;
      readonly roles: readonly string[];
      readonly sender: Ref<CreateReply>;
    })
  | (Acting & {
      readonly type: 'UpdateAccount';
      readonly id: number;
      readonly firstName?: string | undefined;
      readonly lastName?: string | undefined;
      /** A new email, or null to clear it. */
      readonly email?: string | null | undefined;
      readonly roles?: readonly string[] | undefined;
      readonly enabled?: boolean | undefined;
      readonly sender: Ref<UpdateReply>;
    })
  | (Acting & {
      readonly type: 'SetPassword';
      readonly id: number;
      readonly password: string;
      readonly sender: Ref<SetPasswordReply>;
    })
  | (Acting & { readonly type: 'DeleteAccount'; readonly id: number; readonly sender: Ref<DeleteReply> })
  | { readonly type: 'ListLogins'; readonly id: number; readonly sender: Ref<ListLoginsReply> }
  | (Acting & {
      readonly type: 'EndLogins';
      readonly id: number;
      /** One login (`sid` on the wire); undefined: every login of the account. */
      readonly loginId?: string | undefined;
      readonly sender: Ref<EndLoginsReply>;
    })
  | (Acting & { readonly type: 'ClearLockout'; readonly id: number; readonly sender: Ref<ClearLockoutReply> })
  | { readonly type: 'ListRoles'; readonly sender: Ref<ListRolesReply> }
  | (Acting & {
      readonly type: 'CreateRole';
      readonly roleName: string;
      readonly description: string;
      readonly sender: Ref<CreateRoleReply>;
    })
  | {
      readonly type: 'ChangeOwnPassword';
      /**
       * The account, as the request's access token names it (`account_id`), at the security
       * version the token was minted from: a change made since (an administrator's reset) wins.
       */
      readonly accountId: number;
      readonly accountVersion: number;
      /** The login the request came with (its token's `sid`): it stays, the account's other logins end. */
      readonly loginId: string | undefined;
      readonly currentPassword: string;
      readonly newPassword: string;
      /**
       * Where the request comes from: the current password is counted by the login throttle as a
       * login of the account from there. Undefined: `UNADDRESSED` (the REPL).
       */
      readonly address?: string | undefined;
      /** Past the login throttle's limits: `Throttled`, before a password is compared. */
      readonly sender: Ref<OwnPasswordReply>;
    }
  | {
      readonly type: 'GetProfile';
      /** The account as an access token names it (`account_id`), at the version it was minted from. */
      readonly accountId: number;
      readonly accountVersion: number;
      readonly sender: Ref<ProfileReply>;
    };

/** The fields a caller gives for a message of kind `K`: all but its `type` and `sender`. */
export type Fields<K extends Command['type']> = Omit<MessageOf<Command, K>, 'type' | 'sender'>;

/** Every account with its roles, ordered by id; the BCrypt hashes only when asked for, explicitly. */
export const listAccounts =
  (options: { includePasswordHash?: boolean } = {}): RequestOf<Command, 'ListAccounts'> =>
  (sender) => ({ type: 'ListAccounts', includePasswordHash: options.includePasswordHash === true, sender });

/** A page of accounts by id, those after `afterId` (0: from the first) whose username starts with `usernamePrefix`. */
export const findAccounts =
  (p: { usernamePrefix?: string; afterId?: number; limit?: number } = {}): RequestOf<Command, 'FindAccounts'> =>
  (sender) => ({
    type: 'FindAccounts',
    usernamePrefix: p.usernamePrefix ?? '',
    afterId: p.afterId ?? 0,
    limit: p.limit ?? 20,
    sender,
  });
/** One account, without its hash. */
export const getAccount =
  (p: Fields<'GetAccount'>): RequestOf<Command, 'GetAccount'> =>
  (sender) => ({ type: 'GetAccount', ...p, sender });
/** Creates an account (with an email or none); the password is hashed by the actor (BCrypt, on the worker pool). */
export const createAccount =
  (p: {
    actor: string;
    username: string;
    password: string;
    firstName?: string;
    lastName?: string;
    email?: string | null | undefined;
    roles: readonly string[];
  }): RequestOf<Command, 'CreateAccount'> =>
  (sender) => ({ type: 'CreateAccount', firstName: '', lastName: '', ...p, email: p.email ?? null, sender });
/**
 * Changes names, email (null clears it), roles or `enabled`; disabling ends every login, a role
 * change refuses older access tokens.
 */
export const updateAccount =
  (p: Fields<'UpdateAccount'>): RequestOf<Command, 'UpdateAccount'> =>
  (sender) => ({ type: 'UpdateAccount', ...p, sender });
/** Sets a new password and ends every login of the account. */
export const setPassword =
  (p: Fields<'SetPassword'>): RequestOf<Command, 'SetPassword'> =>
  (sender) => ({ type: 'SetPassword', ...p, sender });
/** Deletes the account and ends every login of it. */
export const deleteAccount =
  (p: Fields<'DeleteAccount'>): RequestOf<Command, 'DeleteAccount'> =>
  (sender) => ({ type: 'DeleteAccount', ...p, sender });
/** The account's live logins. */
export const listLogins =
  (p: Fields<'ListLogins'>): RequestOf<Command, 'ListLogins'> =>
  (sender) => ({ type: 'ListLogins', ...p, sender });
/** Ends one login of the account (`loginId`), or every one. */
export const endLogins =
  (p: Fields<'EndLogins'>): RequestOf<Command, 'EndLogins'> =>
  (sender) => ({ type: 'EndLogins', ...p, sender });
/** Forgets the failed logins counted against the account. */
export const clearLockout =
  (p: Fields<'ClearLockout'>): RequestOf<Command, 'ClearLockout'> =>
  (sender) => ({ type: 'ClearLockout', ...p, sender });
/** Every role, by id. */
export const listRoles = (): RequestOf<Command, 'ListRoles'> => (sender) => ({ type: 'ListRoles', sender });
/** Creates a role. */
export const createRole =
  (p: { actor: string; roleName: string; description?: string }): RequestOf<Command, 'CreateRole'> =>
  (sender) => ({ type: 'CreateRole', description: '', ...p, sender });
/**
 * An account's own new password, given the current one; the account's other logins end. Throttled as a
 * login of the account from `address` (none from the REPL).
 */
export const changeOwnPassword =
  (p: Fields<'ChangeOwnPassword'>): RequestOf<Command, 'ChangeOwnPassword'> =>
  (sender) => ({ type: 'ChangeOwnPassword', ...p, sender });

/**
 * The profile of the account an access token speaks for (OpenID UserInfo): `account.not_found`
 * when the account is gone, disabled, or at another security version than the token's.
 */
export const getProfile =
  (p: Fields<'GetProfile'>): RequestOf<Command, 'GetProfile'> =>
  (sender) => ({ type: 'GetProfile', ...p, sender });

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
  /** An account's email (src/fields.ts): trimmed, unique among accounts compared case-insensitively. */
  email,
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
  ListAccounts: z.strictObject({ includePasswordHash: z.boolean().default(false) }),
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
    email: fields.email.nullable().default(null),
    roles,
  }),
  UpdateAccount: z.strictObject({
    actor,
    id,
    firstName: name.optional(),
    lastName: name.optional(),
    email: fields.email.nullable().optional(),
    roles: roles.optional(),
    enabled: z.boolean().optional(),
  }),
  SetPassword: z.strictObject({ actor, id, password }),
  DeleteAccount: z.strictObject({ actor, id }),
  ListLogins: z.strictObject({ id }),
  EndLogins: z.strictObject({ actor, id, loginId: z.string().optional() }),
  ClearLockout: z.strictObject({ actor, id }),
  ListRoles: z.strictObject({}),
  CreateRole: z.strictObject({ actor, roleName, description: fields.description }),
  ChangeOwnPassword: z.strictObject({
    accountId: id,
    accountVersion: z.number().int().min(0),
    loginId: z.string().optional(),
    currentPassword: password,
    newPassword: password,
    address: z.string().optional(),
  }),
  GetProfile: z.strictObject({ accountId: id, accountVersion: z.number().int().min(0) }),
} as const satisfies MessageSchemas<Command>;

/** What the REPL's `.protocol accounts` lists: {@link MessageExamples}. */
export const examples = {
  ListAccounts: 'Accounts.listAccounts()',
  FindAccounts: "Accounts.findAccounts({ usernamePrefix: 'j', limit: 10 })",
  GetAccount: 'Accounts.getAccount({ id: 2 })',
  CreateAccount:
    "Accounts.createAccount({ actor: 'admin', username: 'jane', password: '<8 characters to 72 bytes, not a common one>', email: 'jane@example.com', roles: ['USER'] })",
  UpdateAccount: [
    "Accounts.updateAccount({ actor: 'admin', id: 3, enabled: false })",
    "Accounts.updateAccount({ actor: 'admin', id: 3, email: null })",
  ],
  SetPassword:
    "Accounts.setPassword({ actor: 'admin', id: 3, password: '<8 characters to 72 bytes, not a common one>' })",
  DeleteAccount: "Accounts.deleteAccount({ actor: 'admin', id: 3 })",
  ListLogins: 'Accounts.listLogins({ id: 2 })',
  EndLogins: "Accounts.endLogins({ actor: 'admin', id: 2 })",
  ClearLockout: "Accounts.clearLockout({ actor: 'admin', id: 2 })",
  ListRoles: 'Accounts.listRoles()',
  CreateRole: "Accounts.createRole({ actor: 'admin', roleName: 'AUDITOR', description: 'reads logs' })",
  ChangeOwnPassword:
    "Accounts.changeOwnPassword({ accountId: 3, accountVersion: 0, loginId: undefined, currentPassword: '<now>', newPassword: '<new>' })",
  GetProfile: 'Accounts.getProfile({ accountId: 2, accountVersion: 0 })',
} as const satisfies MessageExamples<Command>;
