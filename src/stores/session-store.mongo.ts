import type { Db as MongoDb } from 'mongodb';
import type { SessionRecord, SessionStore } from './session-store.ts';
import { guarded, type CollectionIndexes, type Runner } from './mongo.ts';

interface SessionDoc {
  /** The hash of the cookie's value. */
  _id: string;
  accountId: number;
  accountVersion: number;
  authTime: number;
  createdAt: number;
  expiresAt: number;
  endedAt: number | null;
}

export const SESSION_INDEXES: CollectionIndexes = {
  sessions: [
    { key: { accountId: 1, expiresAt: 1 }, name: 'sessions_account' },
    { key: { expiresAt: 1 }, name: 'sessions_expiry' },
  ],
};

const toRecord = ({ _id, ...rest }: SessionDoc): SessionRecord => ({ idHash: _id, ...rest });

/**
 * MongoDB adapter of {@link SessionStore}: collection `sessions`, keyed by the hash of the cookie's
 * value. Each operation is one command, so instances see each other's writes at once.
 */
export function mongoSessionStore(db: MongoDb, run: Runner = guarded): SessionStore {
  const sessions = db.collection<SessionDoc>('sessions');
  const going = (accountId: number, at: number) => ({ accountId, endedAt: null, expiresAt: { $gt: at } });
  return {
    insert: ({ idHash, ...rest }) =>
      run(async () => {
        await sessions.insertOne({ _id: idHash, ...rest });
      }),
    find: (idHash) =>
      run(async () => {
        const doc = await sessions.findOne({ _id: idHash });
        return doc === null ? undefined : toRecord(doc);
      }),
    end: (idHash, at) =>
      run(
        async () =>
          (await sessions.updateOne({ _id: idHash, endedAt: null }, { $set: { endedAt: at } })).modifiedCount === 1,
      ),
    endForAccount: (accountId, at) =>
      run(async () => (await sessions.updateMany(going(accountId, at), { $set: { endedAt: at } })).modifiedCount),
    listForAccount: (accountId, at) =>
      run(async () =>
        (await sessions.find(going(accountId, at)).sort({ createdAt: -1, _id: 1 }).toArray()).map(toRecord),
      ),
    purgeExpired: (now) =>
      run(
        async () =>
          (await sessions.deleteMany({ $or: [{ expiresAt: { $lt: now } }, { endedAt: { $lt: now } }] })).deletedCount,
      ),
  };
}
