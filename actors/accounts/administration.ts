/**
 * AccountActor's administration. Each operation runs beside the actor's mailbox (BCrypt on the
 * worker pool, the store's own transactions), its reply straight to the sender and a failure back
 * to the actor, as the listing does: the store is the truth, so nothing here is kept between
 * messages. What cuts access moves the account's security version in the store's own write (see
 * `AccountStore`), before it answers; the logins it ends are then ended one by one.
 */
import { secondsClock } from '../../src/security/epoch.ts';
import type { MessageOf } from '../../src/messaging/ask.ts';
import { fail, ok, type Reply } from '../../src/messaging/reply.ts';
import type { Denylist } from '../../src/security/denylist.ts';
import { PASSWORD_CHECKS, throttledLogin, type Throttled } from '../../src/security/login-attempts.ts';
import type { LoginThrottle } from '../../src/security/login-throttle.ts';
import { passwordPolicyRefusal } from '../../src/security/password-policy.ts';
import { isTooLong, type PasswordHasher } from '../../src/security/passwords.ts';
import { canonicalUsername } from '../../src/security/usernames.ts';
import type { AccountRecord, AccountRefusal, AccountStore } from '../../src/stores/account-store.ts';
import type { RefreshTokenStore } from '../../src/stores/refresh-token-store.ts';
import { ADMIN_ROLE, type Command, type LoginView } from './protocol.ts';
import type * as Accounts from './protocol.ts';
import { iso, summary } from './views.ts';

/** One administrative change, as the event log records it: never a password or a hash. */
export interface AccountEvent {
  readonly action: string;
  /** Who acted: an administrator, or the account itself. */
  readonly actor: string;
  /** The account (username) or role acted on. */
  readonly target: string;
  readonly detail?: Readonly<Record<string, unknown>>;
}

export interface AccountDeps {
  readonly accounts: AccountStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly denylist: Denylist;
  readonly passwords: PasswordHasher;
  /** BCrypt cost of the passwords set here (`security.password.bcrypt-cost`). */
  readonly bcryptCost: number;
  /** `security.sign-in.product-name`: refused in a password, as the username is (src/security/password-policy.ts). */
  readonly productName: string;
  readonly accessTokenValidity: number;
  /** Counts an account's own password changes as logins (src/security/login-throttle.ts). */
  readonly throttle: Pick<LoginThrottle, 'begin'>;
  /** Forgets the failed logins counted against a username. */
  readonly clearLockout: (username: string) => Promise<void>;
  readonly onAccountEvent: (event: AccountEvent) => void;
  /**
   * The registered clients' ids in the usernames' canonical form (src/security/subjects.ts): no
   * account is created under one, so an account's `sub` is never a client's.
   */
  readonly clientSubjects: ReadonlySet<string>;
}

type Of<T extends Command['type']> = MessageOf<Command, T>;
/** A refusal, whichever reply it goes into: its code is one of that reply's. */
type Refusal<Code extends string> = Reply<never, Code>;

const REFUSALS: Readonly<Record<AccountRefusal, string>> = {
  'account.not_found': 'No such account',
  'account.username_taken': 'The username is taken',
  'account.email_taken': 'Another account has the email',
  'account.last_admin': `The last enabled ${ADMIN_ROLE} cannot be disabled, deleted or demoted`,
  'role.unknown': 'A role named is not a role', // the names are added by unknownRoles
  'role.name_taken': 'The role name is taken',
};

/**
 * The handlers of administration, one per message kind but the listing, each answering its own
 * reply; AccountActor's switch runs them beside its mailbox. `revokeLogin`: ends one login (with
 * its horizons, src/security/logins.ts); `nowMs`: the actor's clock.
 */
export function createAccountAdmin(
  deps: AccountDeps,
  revokeLogin: (loginId: string) => Promise<void>,
  nowMs: () => number,
) {
  const seconds = secondsClock(nowMs);
  const refused = <C extends AccountRefusal>(code: C): Refusal<C> => fail(code, REFUSALS[code]);
  const found = async (id: number): Promise<AccountRecord | Refusal<'account.not_found'>> =>
    (await deps.accounts.findById(id)) ?? refused('account.not_found');
  /** The policy's refusal of `password` as the password of `username`. */
  const passwordRefusal = (password: string, username: string): Refusal<'password.invalid'> | undefined => {
    const why = passwordPolicyRefusal(password, { username, productName: deps.productName });
    return why === undefined ? undefined : fail('password.invalid', why);
  };
  /** `role.unknown`, naming each role asked for that is not one (quoted, as the request wrote it). */
  const unknownRoles = async (asked: readonly string[]): Promise<Refusal<'role.unknown'>> => {
    const known = new Set((await deps.accounts.listRoles()).map((r) => r.roleName));
    const names = [...new Set(asked)].filter((name) => !known.has(name)).map((name) => JSON.stringify(name));
    if (names.length === 0) return refused('role.unknown');
    const [one] = names;
    return fail(
      'role.unknown',
      names.length === 1 ? `A role named ${one} is not a role` : `Roles named ${names.join(', ')} are not roles`,
    );
  };
  const event = (action: string, actor: string, target: string, detail?: Record<string, unknown>): void =>
    deps.onAccountEvent({ action, actor, target, ...(detail ? { detail } : {}) });

  /**
   * The account's security version moved (in the write that changed it, which also wrote the
   * revocation entry every process reads): this process refuses the older tokens from now on.
   */
  const moved = (account: AccountRecord): void => deps.denylist.accountMoved(account.id, account.securityVersion);
  /**
   * Ends the account's logins (all but `keep`) one by one: their refresh tokens are revoked and
   * their access tokens refused by login. The version already refuses all of them; this is what
   * lists them as ended (no longer under `sessions`, a refresh answered "revoked").
   */
  const endLogins = async (accountId: number, keep?: string): Promise<void> => {
    for (const loginId of await deps.refreshTokens.liveLogins(accountId, seconds()))
      if (loginId !== keep) await revokeLogin(loginId);
  };
  const ended = async (account: AccountRecord, keep?: string): Promise<void> => {
    moved(account);
    await endLogins(account.id, keep);
  };

  const onFindAccounts = async (m: Of<'FindAccounts'>): Promise<Accounts.FindReply> => {
    const page = await deps.accounts.page({
      usernamePrefix: m.usernamePrefix,
      afterId: m.afterId,
      limit: m.limit + 1,
    });
    const items = page.slice(0, m.limit).map(summary);
    return ok({ items, nextAfterId: page.length > m.limit ? (items.at(-1)?.id ?? null) : null });
  };
  const onGetAccount = async (m: Of<'GetAccount'>): Promise<Accounts.GetReply> => {
    const account = await found(m.id);
    return 'ok' in account ? account : ok(summary(account));
  };
  const onCreateAccount = async (m: Of<'CreateAccount'>): Promise<Accounts.CreateReply> => {
    if (deps.clientSubjects.has(canonicalUsername(m.username)))
      return fail('account.username_reserved', "The username is a registered client's id");
    const bad = passwordRefusal(m.password, m.username);
    if (bad) return bad;
    const password = await deps.passwords.hash(m.password, deps.bcryptCost);
    const { username, firstName, lastName, email, roles } = m;
    const made = await deps.accounts.createAccount({
      username,
      password,
      firstName,
      lastName,
      email,
      roles,
      enabled: true,
      updatedAt: seconds(),
    });
    if (made === 'role.unknown') return unknownRoles(roles);
    if (typeof made === 'string') return refused(made);
    event('account.created', m.actor, username, { roles });
    return ok(summary(made));
  };
  const onUpdateAccount = async (m: Of<'UpdateAccount'>): Promise<Accounts.UpdateReply> => {
    const { firstName, lastName, email, roles, enabled } = m;
    const before = await found(m.id);
    if ('ok' in before) return before;
    const changes = { firstName, lastName, email, roles, enabled };
    const after = await deps.accounts.updateAccount(m.id, changes, ADMIN_ROLE, seconds());
    if (after === 'role.unknown') return unknownRoles(roles ?? []);
    if (typeof after === 'string') return refused(after);
    const rolesChanged = summary(before).roles.join() !== summary(after).roles.join();
    if (!after.enabled && before.enabled) await ended(after);
    else if (after.securityVersion !== before.securityVersion) moved(after);
    event('account.updated', m.actor, after.username, {
      changed: Object.keys(changes).filter((k) => m[k as keyof typeof m] !== undefined),
      ...(rolesChanged ? { roles: summary(after).roles } : {}),
      enabled: after.enabled,
    });
    return ok(summary(after));
  };
  const onSetPassword = async (m: Of<'SetPassword'>): Promise<Accounts.SetPasswordReply> => {
    // Read for its username, which the policy refuses in the password (a username never changes).
    const account = await found(m.id);
    if ('ok' in account) return account;
    const bad = passwordRefusal(m.password, account.username);
    if (bad) return bad;
    const done = await deps.accounts.setPassword(m.id, await deps.passwords.hash(m.password, deps.bcryptCost));
    if (typeof done === 'string') return refused(done);
    await ended(done);
    event('account.password_set', m.actor, done.username);
    return ok(null);
  };
  const onDeleteAccount = async (m: Of<'DeleteAccount'>): Promise<Accounts.DeleteReply> => {
    const gone = await deps.accounts.deleteAccount(m.id, ADMIN_ROLE);
    if (typeof gone === 'string') return refused(gone);
    deps.denylist.accountMoved(gone.id, Number.MAX_SAFE_INTEGER);
    await endLogins(gone.id);
    event('account.deleted', m.actor, gone.username);
    return ok(null);
  };
  const onListLogins = async (m: Of<'ListLogins'>): Promise<Accounts.ListLoginsReply> => {
    const account = await found(m.id);
    if ('ok' in account) return account;
    const logins = await deps.refreshTokens.loginsOf(account.id, seconds());
    return ok(
      logins.map((l): LoginView => ({
        sid: l.loginId,
        clientId: l.clientId,
        createdAt: iso(l.createdAt),
        lastRefreshedAt: iso(l.refreshedAt),
        expiresAt: iso(l.expiresAt),
      })),
    );
  };
  const onEndLogins = async (m: Of<'EndLogins'>): Promise<Accounts.EndLoginsReply> => {
    const account = await found(m.id);
    if ('ok' in account) return account;
    if (m.loginId === undefined) {
      const done = await deps.accounts.endLogins(account.id);
      if (typeof done === 'string') return refused(done);
      await ended(done);
    } else if ((await deps.refreshTokens.liveLogins(account.id, seconds())).includes(m.loginId))
      await revokeLogin(m.loginId);
    else return fail('login.not_found', 'No live login of the account has that id');
    event(m.loginId === undefined ? 'account.logins_ended' : 'account.login_ended', m.actor, account.username, {
      ...(m.loginId === undefined ? {} : { sid: m.loginId }), // the event log's published field
    });
    return ok(null);
  };
  const onClearLockout = async (m: Of<'ClearLockout'>): Promise<Accounts.ClearLockoutReply> => {
    const account = await found(m.id);
    if ('ok' in account) return account;
    await deps.clearLockout(account.username);
    event('account.lockout_cleared', m.actor, account.username);
    return ok(null);
  };
  const onCreateRole = async (m: Of<'CreateRole'>): Promise<Accounts.CreateRoleReply> => {
    const role = await deps.accounts.createRole({ roleName: m.roleName, description: m.description });
    if (typeof role === 'string') return refused(role);
    event('role.created', m.actor, role.roleName);
    return ok({ roleName: role.roleName, description: role.description });
  };
  /**
   * Counted as a login of the account from the request's address before any BCrypt work: the same
   * per-account and per-address counts as the password grant and the sign-in form. A wrong current
   * password is a failed login, a change made a successful one; anything else gives the count back.
   */
  const onChangeOwnPassword = async (m: Of<'ChangeOwnPassword'>): Promise<Accounts.OwnPasswordReply> => {
    // The account the token was minted from, at that version: after a change (a reset, a disable)
    // the token speaks for no account, however long it took to reach here.
    const account = await deps.accounts.findById(m.accountId);
    if (!account?.enabled || account.securityVersion !== m.accountVersion) return refused('account.not_found');
    const login = { username: account.username, address: m.address, words: PASSWORD_CHECKS };
    return throttledLogin(
      deps.throttle,
      login,
      () => changeOwn(m, account),
      (r) => (r.ok ? 'succeeded' : r.code === 'password.incorrect' ? 'failed' : 'abandoned'),
    );
  };
  const changeOwn = async (
    m: Of<'ChangeOwnPassword'>,
    account: AccountRecord,
  ): Promise<Exclude<Accounts.OwnPasswordReply, Throttled>> => {
    const bad = passwordRefusal(m.newPassword, account.username);
    if (bad) return bad;
    if (isTooLong(m.currentPassword) || !(await deps.passwords.verify(m.currentPassword, account.password)))
      return fail('password.incorrect', 'The current password is not right');
    // Written only if the account is still at that version: an administrator's reset made while
    // the passwords were compared is never overwritten by this change.
    const done = await deps.accounts.setPassword(
      account.id,
      await deps.passwords.hash(m.newPassword, deps.bcryptCost),
      m.loginId,
      m.accountVersion,
    );
    if (typeof done === 'string') return refused(done);
    await ended(done, m.loginId);
    event('account.password_changed', account.username, account.username);
    return ok(null);
  };

  const onListRoles = async (): Promise<Accounts.ListRolesReply> =>
    ok((await deps.accounts.listRoles()).map((r) => ({ roleName: r.roleName, description: r.description })));

  return {
    onFindAccounts,
    onGetAccount,
    onCreateAccount,
    onUpdateAccount,
    onSetPassword,
    onDeleteAccount,
    onListLogins,
    onEndLogins,
    onClearLockout,
    onListRoles,
    onCreateRole,
    onChangeOwnPassword,
  };
}

/** Administration's handlers, as AccountActor runs them. */
export type AccountAdmin = ReturnType<typeof createAccountAdmin>;
