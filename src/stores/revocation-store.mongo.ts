import type { Db as MongoDb } from 'mongodb';
import { guarded, type Runner } from './mongo.ts';
import {
  addedSince,
  revocationExpiredBefore,
  revocationKey,
  revocationUpsert,
  type RevocationDoc,
} from './revocation-store.mongo-queries.ts';
import type { Revocation, RevocationStore } from './revocation-store.ts';

/**
 * MongoDB adapter of {@link RevocationStore}: collection `revocations`. Each entry carries the
 * server's time of its insertion (`addedAt`); a reader asks for what was added since the newest
 * it saw, reading a window back again (entries written at once may appear out of order).
 * `changed` says yes once every `syncMs`: another instance's revocation is honoured here within
 * that bound (`security.revocation-sync-ms`), each instance reading the collection at most that often.
 */
export function mongoRevocationStore(
  db: MongoDb,
  syncMs: number,
  run: Runner = guarded,
  now: () => number = Date.now,
): RevocationStore {
  const revocations = db.collection<RevocationDoc>('revocations');
  let lastLook = -Infinity;
  return {
    add: (r) =>
      run(async () => {
        await revocations.updateOne({ _id: revocationKey(r) }, revocationUpsert(r), { upsert: true });
      }),
    has: (kind, id, at) =>
      run(async () => {
        const doc = await revocations.findOne({ _id: revocationKey({ kind, id }) }, { readPreference: 'primary' });
        return doc !== null && doc.expiresAt >= at;
      }),
    since: (cursor, at) =>
      run(async () => {
        // Until a read succeeds, every check asks again: a list that cannot be read admits nothing.
        lastLook = -Infinity;
        const docs = await revocations.find(addedSince(cursor)).toArray();
        lastLook = now();
        const live: Revocation[] = docs
          .filter((d) => d.expiresAt >= at)
          .map(({ kind, id, expiresAt, belowVersion }) => ({
            kind,
            id,
            expiresAt,
            ...(belowVersion === undefined ? {} : { belowVersion }),
          }));
        return { revocations: live, cursor: docs.reduce((max, d) => Math.max(max, d.addedAt.getTime()), cursor) };
      }),
    changed: () => now() - lastLook >= syncMs,
    seesEveryWrite: false,
    tokensOfLogin: (loginId, at) =>
      run(() => revocations.countDocuments({ loginId, kind: 'token', expiresAt: { $gte: at } })),
    purgeExpired: (at) => run(async () => (await revocations.deleteMany(revocationExpiredBefore(at))).deletedCount),
  };
}
