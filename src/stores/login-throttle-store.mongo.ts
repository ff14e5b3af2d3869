import type { Db as MongoDb } from 'mongodb';
import { RateLimiterMongo } from 'rate-limiter-flexible';
import type { LoginThrottleStore } from './login-throttle-store.ts';
import { guarded } from './mongo.ts';
import { seenBefore, seenNow, type KnownPairDoc } from './mongo-queries.ts';

/** How often (one `remember` in this many) the known pairs are trimmed to their bound. */
const TRIM_EVERY = 100;

/**
 * MongoDB adapter of {@link LoginThrottleStore}: rate-limiter-flexible's RateLimiterMongo on the
 * collection `login_throttle` (its indexes, a TTL one among them, are created at start-up with the
 * others), and the known pairs in `login_known_pairs`.
 */
export function mongoLoginThrottleStore(db: MongoDb): LoginThrottleStore {
  const pairs = db.collection<KnownPairDoc>('login_known_pairs');
  let remembered = 0;
  return {
    counter: ({ keyPrefix, points, duration }) =>
      new RateLimiterMongo({
        storeClient: db,
        tableName: 'login_throttle',
        disableIndexesCreation: true,
        keyPrefix,
        points,
        duration,
      }),
    isKnown: (pair) => guarded(async () => (await pairs.countDocuments({ _id: pair }, { limit: 1 })) > 0),
    remember: (pair, max) =>
      guarded(async () => {
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
    purgeExpired: async () => 0,
  };
}
