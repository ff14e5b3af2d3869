import { writeTransaction, type Db } from './sqlite.ts';
import {
  changesProfile,
  type AccountChanges,
  type AccountInput,
  type AccountQuery,
  type AccountRecord,
  type AccountRefusal,
  type AccountStore,
  type NewAccount,
  type Role,
  type RoleInput,
  type SeedOutcome,
} from './account-store.ts';

interface AccountRow {
  id: number;
  username: string;
  password: string;
  first_name: string;
  last_name: string;
  email: string | null;
  enabled: 0 | 1;
  security_version: number;
  updated_at: number;
}
interface RoleRow {
  user_id: number;
  id: number;
  role_name: string;
  description: string;
}

const toRole = (r: RoleRow): Role => ({ id: r.id, roleName: r.role_name, description: r.description });

/** Thrown inside a write transaction to roll it back with the refusal. */
class Refused extends Error {
  readonly refusal: AccountRefusal;
  constructor(refusal: AccountRefusal) {
    super(refusal);
    this.refusal = refusal;
  }
}

const refusing =
  <A extends unknown[], R>(write: (...args: A) => R) =>
  (...args: A): R | AccountRefusal => {
    try {
      return write(...args);
    } catch (error) {
      if (error instanceof Refused) return error.refusal;
      throw error;
    }
  };

/**
 * SQLite adapter of {@link AccountStore}: tables `users`, `roles`, `user_roles` and
 * `seeded_accounts` (the usernames seeded from the initial data, see migration 016). The stored names
 * predate the word account; they are kept for existing databases, operators' scripts and backups.
 */
export function sqliteAccountStore(db: Db): AccountStore {
  const byName = db.prepare<[string], AccountRow>('select * from users where username = ?');
  const byId = db.prepare<[number], AccountRow>('select * from users where id = ?');
  const allAccounts = db.prepare<[], AccountRow>('select * from users order by id');
  const pageOf = db.prepare<[number, string, string, number], AccountRow>(
    'select * from users where id > ? and substr(username, 1, length(?)) = ? order by id limit ?',
  );
  const rolesOf = db.prepare<[number], RoleRow>(
    'select ur.user_id, r.id, r.role_name, r.description from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = ? order by r.id',
  );
  const allRoles = db.prepare<[], RoleRow>(
    'select ur.user_id, r.id, r.role_name, r.description from user_roles ur join roles r on r.id = ur.role_id order by ur.user_id, r.id',
  );
  const roleList = db.prepare<[], RoleRow>('select 0 as user_id, id, role_name, description from roles order by id');
  const roleByName = db.prepare<[string], { id: number }>('select id from roles where role_name = ?');
  const upsertRole = db.prepare<[{ name: string; description: string | null }], Role>(
    `insert into roles (role_name, description) values (@name, coalesce(@description, ''))
     on conflict (role_name) do update set description = coalesce(@description, description)
     returning id, role_name as roleName, description`,
  );
  const insertRole = db.prepare<[string, string], Role>(
    `insert into roles (role_name, description) values (?, ?) on conflict (role_name) do nothing
     returning id, role_name as roleName, description`,
  );
  // Its updated_at moves only when the names change (unqualified names: the row as it was).
  const upsertAccount = db.prepare<[string, string, string, string, number], { id: number }>(
    `insert into users (username, password, first_name, last_name, updated_at) values (?, ?, ?, ?, ?)
     on conflict (username) do update set password = excluded.password, first_name = excluded.first_name,
     last_name = excluded.last_name, updated_at = iif(first_name is excluded.first_name
     and last_name is excluded.last_name, updated_at, excluded.updated_at)
     returning id`,
  );
  const insertAccount = db.prepare<[string, string, string, string, string | null, number, number], { id: number }>(
    `insert into users (username, password, first_name, last_name, email, enabled, updated_at)
     values (?, ?, ?, ?, ?, ?, ?) on conflict (username) do nothing returning id`,
  );
  const updateRow = db.prepare<[string | null, string | null, number | null, number]>(
    `update users set first_name = coalesce(?, first_name), last_name = coalesce(?, last_name),
     enabled = coalesce(?, enabled) where id = ?`,
  );
  const setEmail = db.prepare<[string | null, number]>('update users set email = ? where id = ?');
  const touch = db.prepare<[number, number]>('update users set updated_at = ? where id = ?');
  // The index on lower(email) answers this; another account's, compared case-insensitively.
  const emailHolder = db
    .prepare<[string, number], number>('select id from users where lower(email) = lower(?) and id <> ?')
    .pluck();
  const setHash = db.prepare<[string, number]>(
    'update users set password = ?, security_version = security_version + 1 where id = ?',
  );
  // Conditional on the hash compared, in one statement: a password set since is left as it is.
  const replaceHash = db.prepare<[string, number, string]>(
    'update users set password = ? where id = ? and password = ?',
  );
  const moveVersion = db.prepare<[number]>('update users set security_version = security_version + 1 where id = ?');
  // The same database holds the logins: carried to the new version in the write that moves it.
  const carryLogins = db.prepare<[number, number, number]>(
    `update refresh_tokens set account_version = ?
     where account_id = ? and account_version = ? and used_at is null and revoked_at is null`,
  );
  const carryLogin = db.prepare<[number, number, number, string]>(
    `update refresh_tokens set account_version = ?
     where account_id = ? and account_version = ? and family_id = ? and used_at is null and revoked_at is null`,
  );
  const seededBefore = db.prepare<[string], 1>('select 1 from seeded_accounts where username = ?').pluck();
  const recordSeeded = db.prepare<[string]>(
    'insert into seeded_accounts (username, seeded_at) values (?, unixepoch())',
  );
  const removeAccount = db.prepare<[number]>('delete from users where id = ?');
  const holders = db
    .prepare<[string], number>(
      `select count(*) from users u join user_roles ur on ur.user_id = u.id join roles r on r.id = ur.role_id
       where u.enabled = 1 and r.role_name = ?`,
    )
    .pluck();
  const changes = db.prepare<[], number>("select n from change_counters where name = 'credentials'").pluck();
  const clearRoles = db.prepare<[number]>('delete from user_roles where user_id = ?');
  const addRole = db.prepare<[number, number]>('insert or ignore into user_roles (user_id, role_id) values (?, ?)');

  const withRoles = (row: AccountRow, roles: readonly Role[]): AccountRecord => ({
    id: row.id,
    username: row.username,
    password: row.password,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    roles,
    enabled: row.enabled === 1,
    securityVersion: row.security_version,
    updatedAt: row.updated_at,
  });
  const record = (row: AccountRow | undefined): AccountRecord | undefined =>
    row && withRoles(row, rolesOf.all(row.id).map(toRole));
  /** The account as this write leaves it. */
  const current = (id: number): AccountRecord => {
    const after = record(byId.get(id));
    if (!after) throw new Error('updated account vanished');
    return after;
  };
  const saveRole = (role: RoleInput): Role => {
    const saved = upsertRole.get({ name: role.roleName, description: role.description ?? null });
    if (!saved) throw new Error('role upsert returned no row');
    return saved;
  };

  const saveAccount = writeTransaction(db, (account: AccountInput): number => {
    const { username, password, firstName, lastName, updatedAt } = account;
    const row = upsertAccount.get(username, password, firstName ?? '', lastName ?? '', updatedAt);
    if (!row) throw new Error('account upsert returned no row');
    clearRoles.run(row.id);
    for (const role of account.roles) addRole.run(row.id, saveRole(role).id);
    return row.id;
  });

  /** Links the account to the named roles, replacing its set; every name must exist. */
  const linkRoles = (id: number, roles: readonly string[]): void => {
    clearRoles.run(id);
    for (const name of roles) {
      const role = roleByName.get(name);
      if (!role) throw new Refused('role.unknown');
      addRole.run(id, role.id);
    }
  };
  /** Refuses an email another account has (`except`: the account being changed), inside the write. */
  const refuseTakenEmail = (email: string | null | undefined, except = 0): void => {
    if (email !== undefined && email !== null && emailHolder.get(email, except) !== undefined)
      throw new Refused('account.email_taken');
  };
  /** Whether the account is an enabled holder of `role`. */
  const holds = (account: AccountRecord, role: string): boolean =>
    account.enabled && account.roles.some((r) => r.roleName === role);

  const insert = (a: NewAccount): { id: number } | undefined =>
    insertAccount.get(a.username, a.password, a.firstName, a.lastName, a.email ?? null, a.enabled ? 1 : 0, a.updatedAt);
  const createAccount = writeTransaction(db, (a: NewAccount): AccountRecord => {
    if (byName.get(a.username)) throw new Refused('account.username_taken');
    refuseTakenEmail(a.email);
    const row = insert(a);
    if (!row) throw new Refused('account.username_taken');
    linkRoles(row.id, a.roles);
    const saved = record(byId.get(row.id));
    if (!saved) throw new Error('created account vanished');
    return saved;
  });
  // The record and the account in one transaction: every process sharing the file agrees on both.
  const seedAccount = writeTransaction(db, (a: NewAccount): SeedOutcome => {
    if (seededBefore.get(a.username) !== undefined) return byName.get(a.username) ? 'present' : 'deleted';
    recordSeeded.run(a.username);
    if (byName.get(a.username)) return 'present';
    refuseTakenEmail(a.email);
    const row = insert(a);
    if (!row) return 'present';
    linkRoles(row.id, a.roles);
    return 'created';
  });
  const updateAccount = writeTransaction(
    db,
    (id: number, c: AccountChanges, guarded: string, at: number): AccountRecord => {
      const before = record(byId.get(id));
      if (!before) throw new Refused('account.not_found');
      const enabled = c.enabled === undefined ? null : c.enabled ? 1 : 0;
      refuseTakenEmail(c.email, id);
      updateRow.run(c.firstName ?? null, c.lastName ?? null, enabled, id);
      if (c.email !== undefined) setEmail.run(c.email, id);
      if (changesProfile(before, c)) touch.run(at, id);
      if (c.roles !== undefined) linkRoles(id, c.roles);
      if (holds(before, guarded) && holders.get(guarded) === 0) throw new Refused('account.last_admin');
      const changed = current(id);
      const roleNames = (a: AccountRecord): string => a.roles.map((r) => r.roleName).join();
      if (changed.enabled === before.enabled && roleNames(changed) === roleNames(before)) return changed;
      moveVersion.run(id);
      // A role change of an enabled account: its logins go on. Enabled again: none comes back.
      if (before.enabled && changed.enabled) carryLogins.run(before.securityVersion + 1, id, before.securityVersion);
      return current(id);
    },
  );
  const setPassword = writeTransaction(
    db,
    (id: number, hash: string, keep: string | undefined, atVersion: number | undefined): AccountRecord => {
      const before = record(byId.get(id));
      if (!before || (atVersion !== undefined && before.securityVersion !== atVersion))
        throw new Refused('account.not_found');
      if (setHash.run(hash, id).changes === 0) throw new Refused('account.not_found');
      if (keep !== undefined) carryLogin.run(before.securityVersion + 1, id, before.securityVersion, keep);
      return current(id);
    },
  );
  const endLogins = writeTransaction(db, (id: number): AccountRecord => {
    if (moveVersion.run(id).changes === 0) throw new Refused('account.not_found');
    return current(id);
  });
  const deleteAccount = writeTransaction(db, (id: number, guarded: string): AccountRecord => {
    const before = record(byId.get(id));
    if (!before) throw new Refused('account.not_found');
    removeAccount.run(id);
    if (holds(before, guarded) && holders.get(guarded) === 0) throw new Refused('account.last_admin');
    return before;
  });
  const createRole = writeTransaction(db, (role: { roleName: string; description: string }): Role => {
    const saved = insertRole.get(role.roleName, role.description);
    if (!saved) throw new Refused('role.name_taken');
    return saved;
  });

  const findByUsername = (username: string): AccountRecord | undefined => record(byName.get(username));
  const saveRoleAlone = writeTransaction(db, saveRole);

  return {
    findByUsername: async (username) => findByUsername(username),
    findById: async (id) => record(byId.get(id)),
    changeCount: async () => changes.get() ?? 0,
    async listAll() {
      const roles = new Map<number, Role[]>();
      for (const r of allRoles.all()) roles.set(r.user_id, [...(roles.get(r.user_id) ?? []), toRole(r)]);
      return allAccounts.all().map((row) => withRoles(row, roles.get(row.id) ?? []));
    },
    page: async (q: AccountQuery) =>
      pageOf
        .all(q.afterId, q.usernamePrefix, q.usernamePrefix, q.limit)
        .map((row) => withRoles(row, rolesOf.all(row.id).map(toRole))),
    listRoles: async () => roleList.all().map(toRole),
    saveRole: async (role) => saveRoleAlone(role),
    async saveAccount(account) {
      saveAccount(account);
      const saved = findByUsername(account.username);
      if (!saved) throw new Error('saved account vanished');
      return saved;
    },
    createRole: async (role) => refusing(createRole)(role),
    createAccount: async (account) => refusing(createAccount)(account),
    seedAccount: async (account) => refusing(seedAccount)(account),
    updateAccount: async (id, c, guarded, at) => refusing(updateAccount)(id, c, guarded, at),
    setPassword: async (id, hash, keepLogin, atVersion) => refusing(setPassword)(id, hash, keepLogin, atVersion),
    replaceHash: async (id, compared, hash) => replaceHash.run(hash, id, compared).changes === 1,
    endLogins: async (id) => refusing(endLogins)(id),
    deleteAccount: async (id, guarded) => refusing(deleteAccount)(id, guarded),
  };
}
