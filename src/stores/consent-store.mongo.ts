import type { Db as MongoDb } from 'mongodb';
import type { ConsentRecord, ConsentStore } from './consent-store.ts';
import { guarded, isDuplicateKey, type CollectionIndexes, type Runner } from './mongo.ts';
import { accountsIn } from './account-store.mongo-queries.ts';

interface ConsentDoc {
  accountId: number;
  clientId: string;
  scopes: string[];
  grantedAt: number;
  updatedAt: number;
}

/** One consent per account and client. */
export const CONSENT_INDEXES: CollectionIndexes = {
  consents: [{ key: { accountId: 1, clientId: 1 }, name: 'consents_account_client', unique: true }],
};

const toRecord = ({ accountId, clientId, scopes, grantedAt, updatedAt }: ConsentDoc): ConsentRecord => ({
  accountId,
  clientId,
  scopes,
  grantedAt,
  updatedAt,
});

/**
 * MongoDB adapter of {@link ConsentStore}: collection `consents`, one document per account and
 * client (a unique index). A grant is one atomic `$addToSet` upsert, so grants at once from two
 * instances each add to what the other wrote. The account's deletion deletes its consents
 * (account-store.mongo.ts); a grant that raced with the deletion sees the account gone after its
 * write and takes the consent back.
 */
export function mongoConsentStore(db: MongoDb, run: Runner = guarded): ConsentStore {
  const consents = db.collection<ConsentDoc>('consents');
  const users = accountsIn(db);
  const upsert = (accountId: number, clientId: string, scopes: readonly string[], at: number) =>
    consents.findOneAndUpdate(
      { accountId, clientId },
      {
        $addToSet: { scopes: { $each: [...scopes] } },
        $set: { updatedAt: at },
        $setOnInsert: { grantedAt: at },
      },
      { upsert: true, returnDocument: 'after' },
    );
  return {
    find: (accountId, clientId) =>
      run(async () => {
        const doc = await consents.findOne({ accountId, clientId }, { readPreference: 'primary' });
        return doc ? toRecord(doc) : undefined;
      }),
    grant: (accountId, clientId, scopes, at) =>
      run(async () => {
        if (!(await users.findOne({ _id: accountId }, { projection: { _id: 1 } }))) return undefined;
        let doc: ConsentDoc | null;
        try {
          doc = await upsert(accountId, clientId, scopes, at);
        } catch (error) {
          // Two first grants at once: one inserted, the other's upsert met the unique index; add to it.
          if (!isDuplicateKey(error)) throw error;
          doc = await upsert(accountId, clientId, scopes, at);
        }
        if (!(await users.findOne({ _id: accountId }, { projection: { _id: 1 }, readPreference: 'primary' }))) {
          await consents.deleteMany({ accountId });
          return undefined;
        }
        return doc ? toRecord(doc) : undefined;
      }),
    list: (accountId) =>
      run(async () =>
        (await consents.find({ accountId }, { readPreference: 'primary' }).sort({ clientId: 1 }).toArray()).map(
          toRecord,
        ),
      ),
    withdraw: (accountId, clientId) =>
      run(async () => (await consents.deleteOne({ accountId, clientId })).deletedCount > 0),
  };
}
