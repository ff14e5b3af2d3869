import { writeTransaction, type Db } from './sqlite.ts';
import type { CredentialStore, Role, RoleInput, AccountInput, AccountRecord } from './credential-store.ts';

interface UserRow {
  id: number;
  username: string;
  password: string;
  first_name: string;
  last_name: string;
}
interface RoleRow {
  user_id: number;
  id: number;
  role_name: string;
  description: string;
}

const toRole = (r: RoleRow): Role => ({ id: r.id, roleName: r.role_name, description: r.description });

/** SQLite adapter of {@link CredentialStore}. */
export function sqliteCredentialStore(db: Db): CredentialStore {
  const byName = db.prepare<[string], UserRow>('select * from users where username = ?');
  const allUsers = db.prepare<[], UserRow>('select * from users order by id');
  const rolesOf = db.prepare<[number], RoleRow>(
    'select ur.user_id, r.id, r.role_name, r.description from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = ? order by r.id',
  );
  const allRoles = db.prepare<[], RoleRow>(
    'select ur.user_id, r.id, r.role_name, r.description from user_roles ur join roles r on r.id = ur.role_id order by ur.user_id, r.id',
  );
  const upsertRole = db.prepare<[{ name: string; description: string | null }], Role>(
    `insert into roles (role_name, description) values (@name, coalesce(@description, ''))
     on conflict (role_name) do update set description = coalesce(@description, description)
     returning id, role_name as roleName, description`,
  );
  const upsertUser = db.prepare<[string, string, string, string], { id: number }>(
    `insert into users (username, password, first_name, last_name) values (?, ?, ?, ?)
     on conflict (username) do update set password = excluded.password, first_name = excluded.first_name, last_name = excluded.last_name
     returning id`,
  );
  const changes = db.prepare<[], number>("select n from change_counters where name = 'credentials'").pluck();
  const clearRoles = db.prepare<[number]>('delete from user_roles where user_id = ?');
  const addRole = db.prepare<[number, number]>('insert or ignore into user_roles (user_id, role_id) values (?, ?)');

  const withRoles = (row: UserRow, roles: readonly Role[]): AccountRecord => ({
    id: row.id,
    username: row.username,
    password: row.password,
    firstName: row.first_name,
    lastName: row.last_name,
    roles,
  });
  const saveRole = (role: RoleInput): Role => {
    const saved = upsertRole.get({ name: role.roleName, description: role.description ?? null });
    if (!saved) throw new Error('role upsert returned no row');
    return saved;
  };

  const saveUser = writeTransaction(db, (user: AccountInput): number => {
    const row = upsertUser.get(user.username, user.password, user.firstName ?? '', user.lastName ?? '');
    if (!row) throw new Error('user upsert returned no row');
    clearRoles.run(row.id);
    for (const role of user.roles) addRole.run(row.id, saveRole(role).id);
    return row.id;
  });

  const findByUsername = (username: string): AccountRecord | undefined => {
    const row = byName.get(username);
    return row && withRoles(row, rolesOf.all(row.id).map(toRole));
  };
  const saveRoleAlone = writeTransaction(db, saveRole);

  return {
    findByUsername: async (username) => findByUsername(username),
    changeCount: async () => changes.get() ?? 0,
    async listAll() {
      const roles = new Map<number, Role[]>();
      for (const r of allRoles.all()) roles.set(r.user_id, [...(roles.get(r.user_id) ?? []), toRole(r)]);
      return allUsers.all().map((row) => withRoles(row, roles.get(row.id) ?? []));
    },
    saveRole: async (role) => saveRoleAlone(role),
    async saveUser(user) {
      saveUser(user);
      const saved = findByUsername(user.username);
      if (!saved) throw new Error('saved user vanished');
      return saved;
    },
  };
}
