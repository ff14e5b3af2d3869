/**
 * The saves by name of a MongoDB account store: a role or an account upserted under its unique
 * name with the next id (the highest plus one, as SQLite's rowids go), or updated under that name,
 * keeping its id. Processes racing may pick one id, or one name: the unique indexes refuse all but
 * one, and the others look again, so ids have no gaps.
 */
import type { Collection, Db as MongoDb } from 'mongodb';
import type { AccountInput, AccountRecord, Role, RoleInput } from './account-store.ts';
import {
  accountByName,
  accountsIn,
  accountUpsert,
  BY_NEWEST_ID,
  roleByName,
  rolesIn,
  roleUpsert,
  toRole,
} from './account-store.mongo-queries.ts';
import { isDuplicateKey } from './mongo.ts';

/** How often an upsert is tried again when another process took the id or the name first. */
const RACE_RETRIES = 20;

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
 * `changed` moves the store's change count after a write; `nextAccountId` gives a new account id
 * (never one given before); `findByUsername` reads an account back with its roles.
 */
export function accountUpserts(
  db: MongoDb,
  changed: () => Promise<unknown>,
  nextAccountId: () => Promise<number>,
  findByUsername: (username: string) => Promise<AccountRecord | undefined>,
) {
  const roles = rolesIn(db);
  const accounts = accountsIn(db);
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
  const saveAccount = async (account: AccountInput): Promise<AccountRecord> => {
    const roleIds: number[] = [];
    for (const role of account.roles) roleIds.push((await saveRole(role)).id);
    for (let attempt = 0; ; attempt++) {
      const existing = await accounts.findOne(accountByName(account.username));
      const id = existing?._id ?? (await nextAccountId());
      try {
        await accounts.updateOne(accountByName(account.username), accountUpsert(account, roleIds, id, existing), {
          upsert: true,
        });
        break;
      } catch (error) {
        if (!isDuplicateKey(error) || attempt >= RACE_RETRIES) throw error;
      }
    }
    await changed();
    const saved = await findByUsername(account.username);
    if (!saved) throw new Error('account upsert left no document');
    return saved;
  };
  return { saveRole, saveAccount };
}
