/**
 * The guards of roles whose last enabled holder must stay (ADMIN) on MongoDB, collection
 * `role_guards` (see `GuardDoc`): an account is taken out of a guard before the write that ends its
 * holding, by one atomic update that matches only while another holder stays, so two concurrent
 * changes cannot both take out the last two; it is listed again after any write that makes it one.
 */
import type { Db as MongoDb } from 'mongodb';
import type { AccountRecord } from './account-store.ts';
import { accountsIn, guardKey, releasable, roleByName, rolesIn, type GuardDoc } from './account-store.mongo-queries.ts';
import { isDuplicateKey } from './mongo.ts';

export function roleGuards(db: MongoDb, findById: (id: number) => Promise<AccountRecord | undefined>) {
  const guards = db.collection<GuardDoc>('role_guards');
  const roles = rolesIn(db);
  const accounts = accountsIn(db);
  const holds = (account: AccountRecord, role: string): boolean =>
    account.enabled && account.roles.some((r) => r.roleName === role);
  /** The guard of `role`, made once from the accounts that hold it. */
  const guardOf = async (role: string): Promise<GuardDoc> => {
    const found = await guards.findOne({ _id: guardKey(role) });
    if (found) return found;
    const roleDoc = await roles.findOne(roleByName(role));
    const holders = roleDoc
      ? (
          await accounts.find({ roleIds: roleDoc._id, enabled: { $ne: false } }, { projection: { _id: 1 } }).toArray()
        ).map((d) => d._id)
      : [];
    try {
      await guards.updateOne({ _id: guardKey(role) }, { $setOnInsert: { holders } }, { upsert: true });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    return (await guards.findOne({ _id: guardKey(role) })) ?? { _id: guardKey(role), holders };
  };
  /**
   * Takes `before` out of the guard of `role` ahead of a change that ends its holding; false when it
   * is the last holder (nothing changed: the change is refused). One atomic update decides it, so
   * two concurrent changes cannot both take out the last two. An enabled holder the guard does not
   * list (one whose addition a crash cut short) may go while the guard lists any other: those are
   * holders too, and the guard never loses its last one.
   */
  const release = async (before: AccountRecord, role: string): Promise<boolean> => {
    if (!holds(before, role)) return true;
    const guard = await guardOf(role);
    if ((await guards.updateOne(releasable(role, before.id), { $pull: { holders: before.id } })).modifiedCount === 1)
      return true;
    return !guard.holders.includes(before.id) && guard.holders.length > 0;
  };
  /** After a write: the account is listed in the guard of every guarded role it now holds. */
  const enlist = async (id: number): Promise<void> => {
    const after = await findById(id);
    if (!after?.enabled) return;
    for (const role of after.roles)
      await guards.updateOne({ _id: guardKey(role.roleName) }, { $addToSet: { holders: id } });
  };
  return { release, enlist };
}
