/**
 * The filters, updates and indexes that `login-throttle-store.mongo.ts` sends to collections
 * `login_throttle` and `login_known_pairs`, as pure functions of their inputs: tested on every run
 * against documents, where no MongoDB server is at hand too.
 */
import type { Filter, UpdateFilter } from 'mongodb';
import type { CollectionIndexes } from './mongo.ts';

/** rate-limiter-flexible's RateLimiterMongo document: a key's count in the window ending `expire`. */
export interface ThrottleDoc {
  key: string;
  points: number;
  expire: Date | null;
}

/** The key while it still counts in the window ending `windowEnds` (a later window has another end). */
export const countInWindow = (key: string, windowEnds: Date): Filter<ThrottleDoc> => ({ key, expire: windowEnds });
export const TAKE_ONE_BACK: UpdateFilter<ThrottleDoc> = { $inc: { points: -1 } };

export interface KnownPairDoc {
  _id: string;
  seenAt: Date;
}

export const seenNow = (at: Date): UpdateFilter<KnownPairDoc> => ({ $set: { seenAt: at } });
export const seenBefore = (at: Date): Filter<KnownPairDoc> => ({ seenAt: { $lt: at } });

export const LOGIN_THROTTLE_INDEXES: CollectionIndexes = {
  // rate-limiter-flexible's RateLimiterMongo documents: one per key, removed by MongoDB once expired.
  login_throttle: [
    { key: { key: 1 }, name: 'login_throttle_key', unique: true },
    { key: { expire: -1 }, name: 'login_throttle_expire', expireAfterSeconds: 0 },
  ],
  login_known_pairs: [{ key: { seenAt: -1 }, name: 'login_known_pairs_seen' }],
};
