/**
 * The filters, mappings and indexes that `activity-store.mongo.ts` sends to collection
 * `user_activity`, as pure functions of their inputs: tested on every run against documents, where
 * no MongoDB server is at hand too.
 */
import type { Filter, Sort } from 'mongodb';
import type { ObjectIdString } from '../ids.ts';
import type { ActivityDetail, ActivityRecord } from './activity-store.ts';
import type { CollectionIndexes } from './mongo.ts';

export interface ActivityDoc {
  _id: string;
  userId: string;
  seq: number;
  type: string;
  detailJson: string;
  at: Date;
}

export const activityDoc = (a: Omit<ActivityRecord, 'seq'>, seq: number): ActivityDoc => ({
  _id: a.id,
  userId: a.userId,
  seq,
  type: a.type,
  detailJson: JSON.stringify(a.detail),
  at: new Date(a.at),
});

export const activityRecord = (d: ActivityDoc): ActivityRecord => ({
  seq: d.seq,
  id: d._id as ObjectIdString,
  userId: d.userId as ObjectIdString,
  type: d.type,
  detail: JSON.parse(d.detailJson) as ActivityDetail,
  at: d.at.toISOString(),
});

/** A page of the user's history, newest first, only before `beforeSeq` when given. */
export const activityPage = (userId: ObjectIdString, beforeSeq: number | undefined): Filter<ActivityDoc> =>
  beforeSeq === undefined ? { userId } : { userId, seq: { $lt: beforeSeq } };
export const NEWEST_FIRST: Sort = { seq: -1 };

export const ACTIVITY_INDEXES: CollectionIndexes = {
  user_activity: [{ key: { userId: 1, seq: -1 }, name: 'user_activity_user', unique: true }],
};
