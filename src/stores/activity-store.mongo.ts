import type { Db as MongoDb } from 'mongodb';
import type { ActivityRecord, ActivityStore } from './activity-store.ts';
import { guarded, type Runner } from './mongo.ts';
import {
  activityDoc,
  activityPage,
  activityRecord,
  NEWEST_FIRST,
  type ActivityDoc,
} from './activity-store.mongo-queries.ts';
import { NEXT_ACTIVITY_SEQ, type UserDataDoc } from './user-store.mongo-queries.ts';

/**
 * Whether the newest page misses no append: a user's seqs run 1, 2, … without gaps, so the page
 * must hold consecutive seqs, reach the newest one numbered, and end at 1 unless more follow.
 */
function settled(items: readonly ActivityRecord[], hasMore: boolean, numbered: number): boolean {
  if (items.length === 0) return numbered === 0;
  const consecutive = items.every((a, i) => a.seq === (items[0]?.seq ?? 0) - i);
  return consecutive && (items[0]?.seq ?? 0) >= numbered && (hasMore || items.at(-1)?.seq === 1);
}

/**
 * MongoDB adapter of {@link ActivityStore}: collection `user_activity`. Each append takes the next
 * seq from its user's document in one atomic update, so a user's activities are ordered by the
 * database whatever instance appends them (and an append for a user that does not exist fails).
 */
export function mongoActivityStore(db: MongoDb, run: Runner = guarded): ActivityStore {
  const users = db.collection<UserDataDoc>('user_data');
  const activity = db.collection<ActivityDoc>('user_activity');
  return {
    append: (a) =>
      run(async () => {
        const user = await users.findOneAndUpdate({ _id: a.userId }, NEXT_ACTIVITY_SEQ, {
          returnDocument: 'after',
          projection: { activitySeq: 1 },
        });
        if (!user) return undefined;
        const doc = activityDoc(a, user.activitySeq);
        await activity.insertOne(doc);
        return activityRecord(doc);
      }),
    latestSeq: (userId) =>
      run(async () => (await activity.findOne({ userId }, { sort: NEWEST_FIRST, projection: { seq: 1 } }))?.seq),
    page: (userId, { limit, beforeSeq }) =>
      run(async () => {
        // Numbered before the page is read: every append numbered by then is expected in it.
        const numbered = (await users.findOne({ _id: userId }, { projection: { activitySeq: 1 } }))?.activitySeq ?? 0;
        const docs = await activity
          .find(activityPage(userId, beforeSeq))
          .sort(NEWEST_FIRST)
          .limit(limit + 1)
          .toArray();
        const items = docs.slice(0, limit).map(activityRecord);
        const hasMore = docs.length > limit;
        return { items, hasMore, settled: beforeSeq !== undefined || settled(items, hasMore, numbered) };
      }),
  };
}
