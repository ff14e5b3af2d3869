import type { Db as MongoDb } from 'mongodb';
import type { LoginThrottleStore } from './login-throttle-store.ts';
import { escapeRegex, guarded, type Runner } from './mongo.ts';
import {
  countInWindow,
  seenBefore,
  seenNow,
  TAKE_ONE_BACK,
  type KnownPairDoc,
  type ThrottleDoc,
} from './login-throttle-store.mongo-queries.ts';
import { MongoLimiter, windowOf } from './rate-limiter-patches.ts';

/** How often (one `remember` in this many) the known pairs are trimmed to their bound. */
const TRIM_EVERY = 100;

/**
 * MongoDB adapter of {@link LoginThrottleStore}: rate-limiter-flexible's RateLimiterMongo on the
 * collection `login_throttle` (its indexes, a TTL one among them, are created at start-up with the
 * others), and the known pairs in `login_known_pairs`.
 */
export function mongoLoginThrottleStore(db: MongoDb, run: Runner = guarded): LoginThrottleStore {
  const pairs = db.collection<KnownPairDoc>('login_known_pairs');
  const counts = db.collection<ThrottleDoc>('login_throttle');
  let remembered = 0;
  return {
    counter: ({ keyPrefix, points, duration }) =>
      new MongoLimiter(
        { storeClient: db, tableName: 'login_throttle', disableIndexesCreation: true, keyPrefix, points, duration },
        run,
      ),
    // One `findOne` per key, as the limiter's own `get` reads it.
    readCounts: (keys) => Promise.all(keys.map(({ counter, key }) => counter.get(key))),
    windowOf,
    giveBack: (counter, key, windowEnds) =>
      run(async () => {
        const filter = countInWindow(counter.getKey(key), new Date(windowEnds));
        const left = await counts.findOneAndUpdate({ ...filter, points: { $gt: 0 } }, TAKE_ONE_BACK, {
          returnDocument: 'after',
        });
        if (left && left.points <= 0) await counts.deleteOne({ ...filter, points: { $lte: 0 } });
      }),
    isKnown: (pair) => run(async () => (await pairs.countDocuments({ _id: pair }, { limit: 1 })) > 0),
    remember: (pair, max) =>
      run(async () => {
        await pairs.updateOne({ _id: pair }, seenNow(new Date()), { upsert: true });
        if (++remembered % TRIM_EVERY !== 0) return;
        const oldest = await pairs
          .find()
          .sort({ seenAt: -1 })
          .skip(max - 1)
          .limit(1)
          .next();
        if (oldest) await pairs.deleteMany(seenBefore(oldest.seenAt));
      }),
    // Ended counts are removed by MongoDB itself (a TTL index on `expire`).
    clearCounts: (start) =>
      run(async () => {
        return (await counts.deleteMany({ key: { $regex: `^${escapeRegex(start)}` } })).deletedCount;
      }),
    purgeExpired: async () => 0,
  };
}
