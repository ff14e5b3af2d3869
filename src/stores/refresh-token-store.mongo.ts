import type { Db as MongoDb } from 'mongodb';
import { guarded, type Runner } from './mongo.ts';
import {
  expiredBefore,
  liveInLogin,
  loginAccessHorizon,
  markRevoked,
  markUsed,
  refreshTokenDoc,
  refreshTokenRecord,
  unspentAt,
  type RefreshTokenDoc,
} from './refresh-token-store.mongo-queries.ts';
import {
  REVOKED_RETENTION_S,
  SPENT_WINDOW,
  type LoginRecord,
  type RefreshTokenRecord,
  type RefreshTokenStore,
} from './refresh-token-store.ts';
import { accountAt, accountsIn } from './account-store.mongo-queries.ts';

/**
 * MongoDB adapter of {@link RefreshTokenStore}: collection `refresh_tokens`, keyed by the token's
 * hash. A rotation is decided by one atomic update (used only if unused and unrevoked): presented
 * to two instances at once, a token is rotated once. The successor is inserted after; a crash in
 * between leaves the login without a usable refresh token (its client logs in again), never two.
 */
export function mongoRefreshTokenStore(db: MongoDb, run: Runner = guarded): RefreshTokenStore {
  const tokens = db.collection<RefreshTokenDoc>('refresh_tokens');
  const accounts = accountsIn(db);
  /**
   * Whether the record's account is enabled at its version. MongoDB has no transaction across the
   * two collections here: the account is read before the write and again after it, and a token
   * written while the account changed is revoked (its login ends; the client signs in again).
   */
  const current = async (r: RefreshTokenRecord): Promise<boolean> =>
    r.accountId === null ||
    (r.accountVersion !== null && (await accounts.countDocuments(accountAt(r.accountId, r.accountVersion))) > 0);
  const stillCurrent = async (r: RefreshTokenRecord, at: number): Promise<boolean> => {
    if (await current(r)) return true;
    await tokens.updateOne({ _id: r.tokenHash }, markRevoked(at));
    return false;
  };
  return {
    insert: (record) =>
      run(async () => {
        if (!(await current(record))) return false;
        await tokens.insertOne(refreshTokenDoc(record));
        return stillCurrent(record, record.issuedAt);
      }),
    find: (hash) =>
      run(async () => {
        const doc = await tokens.findOne({ _id: hash });
        return doc ? refreshTokenRecord(doc) : undefined;
      }),
    rotate: (oldHash, next, at) =>
      run(async () => {
        if (!(await current(next))) return 'stale';
        const spent = await tokens.findOneAndUpdate(unspentAt(oldHash, next), markUsed(at));
        if (!spent) {
          const now = await tokens.findOne({ _id: oldHash });
          return !now || now.usedAt !== null ? 'spent' : 'stale';
        }
        await tokens.insertOne(refreshTokenDoc(next));
        if (!(await stillCurrent(next, at))) {
          // Nothing of this rotation stands: the old token is unspent again, and read again.
          await tokens.updateOne({ _id: oldHash, usedAt: at }, { $set: { usedAt: null } });
          return 'stale';
        }
        const beyond = await tokens
          .find({ familyId: next.loginId, usedAt: { $ne: null } }, { projection: { _id: 1 } })
          .sort({ generation: -1 })
          .skip(SPENT_WINDOW)
          .toArray();
        if (beyond.length > 0) await tokens.deleteMany({ _id: { $in: beyond.map((d) => d._id) } });
        return 'rotated';
      }),
    accessHorizon: (loginId) =>
      run(async () =>
        loginAccessHorizon(await tokens.find({ familyId: loginId }, { projection: { accessExpiresAt: 1 } }).toArray()),
      ),
    revokeLogin: (loginId, at) =>
      run(async () => (await tokens.updateMany(liveInLogin(loginId), markRevoked(at))).modifiedCount),
    liveLogins: (accountId, now) =>
      run(async () =>
        (
          await tokens
            .find(
              { accountId, usedAt: null, revokedAt: null, expiresAt: { $gt: now } },
              { projection: { familyId: 1 } },
            )
            .sort({ issuedAt: 1, _id: 1 })
            .toArray()
        ).map((d) => d.familyId),
      ),
    loginsOf: (accountId, now) =>
      run(async () => {
        const live = await tokens
          .find({ accountId, usedAt: null, revokedAt: null, expiresAt: { $gt: now } })
          .sort({ issuedAt: 1, _id: 1 })
          .toArray();
        const out: LoginRecord[] = [];
        for (const t of live) {
          const first = await tokens.find({ familyId: t.familyId }).sort({ issuedAt: 1 }).limit(1).next();
          out.push({
            loginId: t.familyId,
            clientId: t.clientId,
            createdAt: first?.issuedAt ?? t.issuedAt,
            refreshedAt: t.issuedAt,
            expiresAt: t.expiresAt,
          });
        }
        return out;
      }),
    purgeExpired: (now) =>
      run(
        async () =>
          (await tokens.deleteMany({ $or: [expiredBefore(now), { revokedAt: { $lt: now - REVOKED_RETENTION_S } }] }))
            .deletedCount,
      ),
  };
}
