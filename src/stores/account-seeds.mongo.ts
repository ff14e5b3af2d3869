/**
 * The accounts of the initial data a MongoDB store has seeded, collection `seeded_accounts` (see
 * `SeededAccountDoc`). No transaction spans the record and the account, so the record is written
 * first, as a claim: only the process whose upsert inserted it creates the account, then marks the
 * record applied. A crash or a failure between the two can leave an account missing, never bring a
 * deleted one back: a failure releases the claim while the account is missing (the next start then
 * creates it), and a claim a crash left behind is `unfinished`, which no process acts on.
 */
import type { Db as MongoDb } from 'mongodb';
import type { AccountRecord, AccountRefusal, NewAccount, SeedOutcome } from './account-store.ts';
import {
  accountByName,
  accountsIn,
  seededAccount,
  seedClaim,
  unapplied,
  type SeededAccountDoc,
} from './account-store.mongo-queries.ts';
import { isDuplicateKey } from './mongo.ts';

export function accountSeeds(db: MongoDb, create: (account: NewAccount) => Promise<AccountRecord | AccountRefusal>) {
  const seeded = db.collection<SeededAccountDoc>('seeded_accounts');
  const accounts = accountsIn(db);
  const applied = async (username: string): Promise<void> => {
    await seeded.updateOne(unapplied(username), { $set: { appliedAt: new Date() } });
  };
  /** What a record found says, with the account as it is now. */
  const settled = async (record: SeededAccountDoc): Promise<SeedOutcome> => {
    if (await accounts.findOne(accountByName(record._id), { projection: { _id: 1 } })) {
      if (record.appliedAt === undefined) await applied(record._id);
      return 'present';
    }
    return record.appliedAt === undefined ? 'unfinished' : 'deleted';
  };
  /** Creates the account under this process's claim, and marks the claim applied. */
  const underClaim = async (account: NewAccount): Promise<SeedOutcome | AccountRefusal> => {
    try {
      const created = await create(account);
      if (typeof created === 'string' && created !== 'account.username_taken') {
        await seeded.deleteOne(unapplied(account.username));
        return created;
      }
      await applied(account.username);
      return typeof created === 'string' ? 'present' : 'created';
    } catch (error) {
      // Applied when the account got written after all; else released, so that the next attempt
      // creates it. Best effort: a claim that stays is `unfinished`, and nothing is created over it.
      const release = async (): Promise<void> => {
        if (await accounts.findOne(accountByName(account.username), { projection: { _id: 1 } }))
          await applied(account.username);
        else await seeded.deleteOne(unapplied(account.username));
      };
      await release().catch(() => undefined);
      throw error;
    }
  };
  const seedAccount = async (account: NewAccount): Promise<SeedOutcome | AccountRefusal> => {
    const found = await seeded.findOne(seededAccount(account.username));
    if (found) return settled(found);
    const claim = await seeded
      .updateOne(seededAccount(account.username), seedClaim(), { upsert: true })
      .catch((error: unknown) => {
        // Two upserts racing on one `_id`: the server may refuse the loser as a duplicate key.
        if (isDuplicateKey(error)) return undefined;
        throw error;
      });
    // Claimed by another process between the read and the upsert: it is creating the account now.
    if (claim?.upsertedCount !== 1) return 'present';
    return underClaim(account);
  };
  return { seedAccount };
}
