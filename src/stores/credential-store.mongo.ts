import type { Collection, Db as MongoDb } from 'mongodb';
import type { CredentialStore, Role, RoleInput, AccountInput, AccountRecord } from './credential-store.ts';
import { guarded, isDuplicateKey, nextSeq, type Runner } from './mongo.ts';
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
} from './mongo-queries.ts';
import type { CounterDoc } from './mongo.ts';

const toRole = (d: RoleDoc): Role => ({ id: d._id, roleName: d.roleName, description: d.description });

const toUser = (d: AccountDoc, roles: readonly Role[]): AccountRecord => ({
  id: d._id,
  username: d.username,
  password: d.password,
  firstName: d.firstName,
  lastName: d.lastName,
  roles,
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

  const findByUsername = async (username: string): Promise<AccountRecord | undefined> => {
    const account = await accounts.findOne(accountByName(username));
    if (!account) return undefined;
    return toUser(account, (await roles.find(rolesByIds(account.roleIds)).sort(BY_ID).toArray()).map(toRole));
  };

  return {
    findByUsername: (username) => run(() => findByUsername(username)),
    changeCount: () =>
      run(async () => (await db.collection<CounterDoc>('counters').findOne({ _id: CREDENTIAL_CHANGES }))?.seq ?? 0),
    listAll: () =>
      run(async () => {
        const [all, allRoles] = await Promise.all([
          accounts.find().sort(BY_ID).toArray(),
          roles.find().sort(BY_ID).toArray(),
        ]);
        const byId = new Map(allRoles.map((r) => [r._id, toRole(r)]));
        return all.map((a) =>
          toUser(
            a,
            a.roleIds.flatMap((id) => byId.get(id) ?? []).sort((x, y) => x.id - y.id),
          ),
        );
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
