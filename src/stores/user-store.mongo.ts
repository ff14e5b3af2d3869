import type { Db as MongoDb } from 'mongodb';
import type { Mongo } from './mongo.ts';
import { isDuplicateKey } from './mongo.ts';
import type { ActivityDoc } from './activity-store.mongo-queries.ts';
import {
  USER_FIELDS,
  userAtVersion,
  userDataDoc,
  userDataRecord,
  userUpdate,
  type UserDataDoc,
} from './user-store.mongo-queries.ts';
import type { UserStore, WriteResult } from './user-store.ts';

/** A unique violation (the case-insensitive email index) is an expected outcome, also on a race. */
async function orEmailTaken(write: () => Promise<WriteResult>): Promise<WriteResult> {
  try {
    return await write();
  } catch (error) {
    if (isDuplicateKey(error)) return { ok: false, reason: 'email_taken' };
    throw error;
  }
}

/**
 * MongoDB adapter of {@link UserStore}: collection `user_data`, emails unique under a
 * case-insensitive collation. Deleting a user deletes its activity in the same transaction where
 * the deployment has transactions; elsewhere the user goes first, then its activity: a crash in
 * between leaves activity of a user that no longer exists, which no read returns (history needs its
 * user) and no append extends (appends take their seq from the user's document).
 */
export function mongoUserStore(mongo: Pick<Mongo, 'db' | 'inTransaction' | 'run'>): UserStore {
  const db: MongoDb = mongo.db;
  const { run } = mongo;
  const users = db.collection<UserDataDoc>('user_data');
  const activity = db.collection<ActivityDoc>('user_activity');
  return {
    find: (id) =>
      run(async () => {
        const doc = await users.findOne({ _id: id }, { projection: USER_FIELDS });
        return doc ? userDataRecord(doc) : undefined;
      }),
    insert: (user) =>
      run(() =>
        orEmailTaken(async () => {
          const doc = userDataDoc(user);
          await users.insertOne(doc);
          return { ok: true, user: userDataRecord(doc) };
        }),
      ),
    update: (id, expectedVersion, changes) =>
      run(() =>
        orEmailTaken(async () => {
          const doc = await users.findOneAndUpdate(userAtVersion(id, expectedVersion), userUpdate(changes), {
            returnDocument: 'after',
            projection: USER_FIELDS,
          });
          if (doc) return { ok: true, user: userDataRecord(doc) };
          return {
            ok: false,
            reason: (await users.countDocuments({ _id: id }, { limit: 1 })) > 0 ? 'version_conflict' : 'not_found',
          };
        }),
      ),
    delete: (id) =>
      mongo.inTransaction(async (session) => {
        const doc = await users.findOneAndDelete(
          { _id: id },
          { projection: USER_FIELDS, ...(session ? { session } : {}) },
        );
        if (!doc) return undefined;
        await activity.deleteMany({ userId: id }, session ? { session } : {});
        return userDataRecord(doc);
      }),
  };
}
