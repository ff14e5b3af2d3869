import type { Collection, Db as MongoDb } from 'mongodb';
import type {
  AccountChanges,
  AccountInput,
  AccountRecord,
  CredentialRefusal,
  CredentialStore,
  NewAccount,
  Role,
  RoleInput,
} from './credential-store.ts';
import { escapeRegex, guarded, isDuplicateKey, nextSeq, type Runner } from './mongo.ts';
import {
  accountByName,
  accountUpsert,
  BY_ID,
  BY_NEWEST_ID,
  CREDENTIAL_CHANGES,
  roleByName,
  rolesByIds,
  roleUpsert,
  type AccountDoc,
  type RoleDoc,
} from './credential-store.mongo-queries.ts';
import type { CounterDoc } from './mongo.ts';

const toRole = (d: RoleDoc): Role => ({ id: d._id, roleName: d.roleName, description: d.description });

const toUser = (d: AccountDoc, roles: readonly Role[]): AccountRecord => ({
  id: d._id,
  username: d.username,
  password: d.password,
  firstName: d.firstName,
  lastName: d.lastName,
  roles,
  enabled: d.enabled !== false,
});

/** How often an upsert is tried again when another process took the id or the name first. */
const RACE_RETRIES = 20;

/**
 * Saves a record under its unique name with the next id (the highest plus one, as SQLite's rowids
 * go), or updates the record of that name, keeping its id. Processes racing may pick one id, or
 * one name: the unique indexes refuse all but one, and the others look again, so ids have no gaps.
 */
async function upsertWithNextId<D extends { _id: number }>(
  collection: Collection<D>,
  existingId: () => Promise<number | undefined>,
  write: (id: number) => Promise<unknown>,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const id = (await existingId()) ?? ((await collection.find().sort(BY_NEWEST_ID).limit(1).next())?._id ?? 0) + 1;
    try {
      await write(id);
      return;
    } catch (error) {
      if (!isDuplicateKey(error) || attempt >= RACE_RETRIES) throw error;
    }
  }
}

/** Each account with the roles it names, in id order, from the role documents at hand. */
function joinRoles(docs: readonly AccountDoc[], roleDocs: readonly RoleDoc[]): AccountRecord[] {
  const byId = new Map(roleDocs.map((r) => [r._id, toRole(r)]));
  return docs.map((d) =>
    toUser(
      d,
      d.roleIds.flatMap((id) => byId.get(id) ?? []).sort((x, y) => x.id - y.id),
    ),
  );
}

/**
 * MongoDB adapter of {@link CredentialStore}: collections `roles` and `users`, numeric ids 1, 2, …
 * without gaps (the listing shows them, as SQLite's do). Every save moves the
 * `credential-changes` counter after its write; a change made to these collections by anything
 * but this adapter does not move it.
 */
export function mongoCredentialStore(db: MongoDb, run: Runner = guarded): CredentialStore {
  const roles = db.collection<RoleDoc>('roles');
  const accounts = db.collection<AccountDoc>('users');

  const changed = (): Promise<number> => nextSeq(db, CREDENTIAL_CHANGES);
  const saveRole = async (role: RoleInput): Promise<Role> => {
    await upsertWithNextId(
      roles,
      async () => (await roles.findOne(roleByName(role.roleName)))?._id,
      (id) => roles.updateOne(roleByName(role.roleName), roleUpsert(role, id), { upsert: true }),
    );
    await changed();
    const saved = await roles.findOne(roleByName(role.roleName));
    if (!saved) throw new Error('role upsert left no document');
    return toRole(saved);
  };

  /** The accounts with their roles (by id), from one query of the roles they name. */
  const withRoles = async (docs: readonly AccountDoc[]): Promise<AccountRecord[]> => {
    if (docs.length === 0) return [];
    const named = await roles.find(rolesByIds([...new Set(docs.flatMap((d) => d.roleIds))])).toArray();
    return joinRoles(docs, named);
  };
  const recordOf = async (account: AccountDoc | null): Promise<AccountRecord | undefined> =>
    account ? (await withRoles([account]))[0] : undefined;
  const findByUsername = async (username: string): Promise<AccountRecord | undefined> =>
    recordOf(await accounts.findOne(accountByName(username)));
  const findById = async (id: number): Promise<AccountRecord | undefined> =>
    recordOf(await accounts.findOne({ _id: id }));
  /** The ids of the named roles, or the refusal when one is unknown. */
  const roleIdsOf = async (names: readonly string[]): Promise<number[] | CredentialRefusal> => {
    const found = await roles.find({ roleName: { $in: [...names] } }).toArray();
    return found.length === new Set(names).size ? found.map((r) => r._id) : 'role.unknown';
  };
  /**
   * Whether removing `before` from the holders of `role` would leave none. MongoDB has no
   * transaction here: two concurrent changes may both pass (SQLite checks inside its write).
   */
  const lastHolder = async (before: AccountRecord, role: string): Promise<boolean> => {
    if (!before.enabled || !before.roles.some((r) => r.roleName === role)) return false;
    const roleDoc = await roles.findOne(roleByName(role));
    if (!roleDoc) return false;
    const others = await accounts.countDocuments({
      _id: { $ne: before.id },
      roleIds: roleDoc._id,
      enabled: { $ne: false },
    });
    return others === 0;
  };
  const createAccount = async (a: NewAccount): Promise<AccountRecord | CredentialRefusal> => {
    const roleIds = await roleIdsOf(a.roles);
    if (typeof roleIds === 'string') return roleIds;
    if (await accounts.findOne(accountByName(a.username))) return 'account.username_taken';
    try {
      await upsertWithNextId(
        accounts,
        async () => undefined,
        (id) =>
          accounts.insertOne({
            _id: id,
            username: a.username,
            password: a.password,
            firstName: a.firstName,
            lastName: a.lastName,
            roleIds,
            enabled: a.enabled,
          }),
      );
    } catch (error) {
      if (isDuplicateKey(error)) return 'account.username_taken';
      throw error;
    }
    await changed();
    return (await findByUsername(a.username)) ?? 'account.not_found';
  };
  const updateAccount = async (
    id: number,
    c: AccountChanges,
    guarded: string,
  ): Promise<AccountRecord | CredentialRefusal> => {
    const before = await findById(id);
    if (!before) return 'account.not_found';
    const roleIds = c.roles === undefined ? undefined : await roleIdsOf(c.roles);
    if (typeof roleIds === 'string') return roleIds;
    const demoted = c.enabled === false || (c.roles !== undefined && !c.roles.includes(guarded));
    if (demoted && (await lastHolder(before, guarded))) return 'account.last_admin';
    const set = {
      ...(c.firstName === undefined ? {} : { firstName: c.firstName }),
      ...(c.lastName === undefined ? {} : { lastName: c.lastName }),
      ...(c.enabled === undefined ? {} : { enabled: c.enabled }),
      ...(roleIds === undefined ? {} : { roleIds }),
    };
    await accounts.updateOne({ _id: id }, { $set: set });
    await changed();
    return (await findById(id)) ?? 'account.not_found';
  };

  return {
    findById: (id) => run(() => findById(id)),
    page: (q) =>
      run(async () => {
        const prefix = new RegExp(`^${escapeRegex(q.usernamePrefix)}`);
        const docs = await accounts
          .find({ _id: { $gt: q.afterId }, username: prefix })
          .sort(BY_ID)
          .limit(q.limit)
          .toArray();
        return withRoles(docs);
      }),
    listRoles: () => run(async () => (await roles.find().sort(BY_ID).toArray()).map(toRole)),
    createRole: (role) =>
      run(async () => {
        if (await roles.findOne(roleByName(role.roleName))) return 'role.name_taken';
        try {
          return await saveRole(role);
        } catch (error) {
          if (isDuplicateKey(error)) return 'role.name_taken';
          throw error;
        }
      }),
    createAccount: (a) => run(() => createAccount(a)),
    updateAccount: (id, c, guarded) => run(() => updateAccount(id, c, guarded)),
    setPassword: (id, hash) =>
      run(async () => {
        const done = await accounts.updateOne({ _id: id }, { $set: { password: hash } });
        if (done.matchedCount === 0) return 'account.not_found';
        await changed();
        return (await findById(id)) ?? 'account.not_found';
      }),
    deleteAccount: (id, guarded) =>
      run(async () => {
        const before = await findById(id);
        if (!before) return 'account.not_found';
        if (await lastHolder(before, guarded)) return 'account.last_admin';
        await accounts.deleteOne({ _id: id });
        await changed();
        return before;
      }),
    findByUsername: (username) => run(() => findByUsername(username)),
    changeCount: () =>
      run(async () => (await db.collection<CounterDoc>('counters').findOne({ _id: CREDENTIAL_CHANGES }))?.seq ?? 0),
    listAll: () =>
      run(async () => {
        const [all, allRoles] = await Promise.all([
          accounts.find().sort(BY_ID).toArray(),
          roles.find().sort(BY_ID).toArray(),
        ]);
        return joinRoles(all, allRoles);
      }),
    saveRole: (role) => run(() => saveRole(role)),
    saveUser: (user: AccountInput) =>
      run(async () => {
        const roleIds: number[] = [];
        for (const role of user.roles) roleIds.push((await saveRole(role)).id);
        await upsertWithNextId(
          accounts,
          async () => (await accounts.findOne(accountByName(user.username)))?._id,
          (id) => accounts.updateOne(accountByName(user.username), accountUpsert(user, roleIds, id), { upsert: true }),
        );
        await changed();
        const saved = await findByUsername(user.username);
        if (!saved) throw new Error('user upsert left no document');
        return saved;
      }),
  };
}
