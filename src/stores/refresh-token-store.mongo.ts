import type { Db as MongoDb } from 'mongodb';
import { guarded, type Runner } from './mongo.ts';
import {
  expiredBefore,
  liveInFamily,
  markRevoked,
  markUsed,
  refreshTokenDoc,
  refreshTokenRecord,
  unspentToken,
  type RefreshTokenDoc,
} from './mongo-queries.ts';
import type { RefreshTokenStore } from './refresh-token-store.ts';

/**
 * MongoDB adapter of {@link RefreshTokenStore}: collection `refresh_tokens`, keyed by the token's
 * hash. A rotation is decided by one atomic update (used only if unused and unrevoked): presented
 * to two instances at once, a token is rotated once. The successor is inserted after; a crash in
 * between leaves the login without a usable refresh token (its client logs in again), never two.
 */
export function mongoRefreshTokenStore(db: MongoDb, run: Runner = guarded): RefreshTokenStore {
  const tokens = db.collection<RefreshTokenDoc>('refresh_tokens');
  return {
    insert: (record) =>
      run(async () => {
        await tokens.insertOne(refreshTokenDoc(record));
      }),
    find: (hash) =>
      run(async () => {
        const doc = await tokens.findOne({ _id: hash });
        return doc ? refreshTokenRecord(doc) : undefined;
      }),
    rotate: (oldHash, next, at) =>
      run(async () => {
        const spent = await tokens.findOneAndUpdate(unspentToken(oldHash), markUsed(at));
        if (!spent) return false;
        await tokens.insertOne(refreshTokenDoc(next));
        return true;
      }),
    revokeFamily: (familyId, at) =>
      run(async () => (await tokens.updateMany(liveInFamily(familyId), markRevoked(at))).modifiedCount),
    purgeExpired: (now) => run(async () => (await tokens.deleteMany(expiredBefore(now))).deletedCount),
  };
}
