import type { Db as MongoDb } from 'mongodb';
import type { ActivityStore } from './activity-store.ts';
import { guarded, type Runner } from './mongo.ts';
import {
  activityDoc,
  activityPage,
  activityRecord,
  NEWEST_FIRST,
  NEXT_ACTIVITY_SEQ,
  type ActivityDoc,
  type UserDataDoc,
} from './mongo-queries.ts';

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
        const docs = await activity
          .find(activityPage(userId, beforeSeq))
          .sort(NEWEST_FIRST)
          .limit(limit + 1)
          .toArray();
        return { items: docs.slice(0, limit).map(activityRecord), hasMore: docs.length > limit };
      }),
  };
}
