import type { Db as MongoDb } from 'mongodb';
import { RateLimiterMongo, type IRateLimiterMongoFunctionOptions, type RateLimiterRes } from 'rate-limiter-flexible';
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
import { noteWindow, type ResultHook, type Windows } from './throttle-windows.ts';

/** How often (one `remember` in this many) the known pairs are trimmed to their bound. */
const TRIM_EVERY = 100;

const windows: Windows = new WeakMap();

/** The document RateLimiterMongo's write returned (older drivers wrapped it in `value`). */
type Returned = { expire?: Date | null } | { value: { expire?: Date | null } | null };

/**
 * RateLimiterMongo noting each count's window (the `expire` its upsert returned), whose calls run
 * as every other operation of the stores do (`run`: only once prepared, failures mapped).
 */
class WindowedLimiter extends RateLimiterMongo {
  readonly #run: Runner;
  constructor(options: ConstructorParameters<typeof RateLimiterMongo>[0], run: Runner) {
    super(options);
    this.#run = run;
  }
  _getRateLimiterRes(rlKey: string, changedPoints: number, result: Returned): RateLimiterRes {
    const base = (RateLimiterMongo.prototype as unknown as ResultHook)._getRateLimiterRes;
    const doc = 'value' in result ? result.value : result;
    return noteWindow(windows, base.call(this, rlKey, changedPoints, result), doc?.expire);
  }
  override consume(
    key: string | number,
    points?: number,
    options?: IRateLimiterMongoFunctionOptions,
  ): Promise<RateLimiterRes> {
    return this.#run(() => super.consume(key, points, options));
  }
  override get(key: string | number, options?: IRateLimiterMongoFunctionOptions): Promise<RateLimiterRes | null> {
    return this.#run(() => super.get(key, options));
  }
  override delete(key: string | number, options?: IRateLimiterMongoFunctionOptions): Promise<boolean> {
    return this.#run(() => super.delete(key, options));
  }
}

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
      new WindowedLimiter(
        { storeClient: db, tableName: 'login_throttle', disableIndexesCreation: true, keyPrefix, points, duration },
        run,
      ),
    // One `findOne` per key, as the limiter's own `get` reads it.
    readCounts: (keys) => Promise.all(keys.map(({ counter, key }) => counter.get(key))),
    windowOf: (result) => windows.get(result),
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
