/**
 * The filters, updates, mappings and indexes that `user-store.mongo.ts` sends to collection
 * `user_data`, as pure functions of their inputs: tested on every run against documents, where no
 * MongoDB server is at hand too.
 */
import type { Filter, UpdateFilter } from 'mongodb';
import type { ObjectIdString } from '../ids.ts';
import type { CollectionIndexes } from './mongo.ts';
import type { UserChanges, UserRecord as DataUser } from './user-store.ts';

export interface UserDataDoc {
  _id: string;
  name: string;
  email: string;
  createdAt: Date;
  updatedAt: Date;
  version: number;
  /** The seq of the user's last activity: the database assigns each append the next one. */
  activitySeq: number;
}
/** Emails are unique compared case-insensitively: a unique index with a strength-2 collation. */
const EMAIL_COLLATION = { locale: 'en', strength: 2 } as const;

export const userDataDoc = (u: Omit<DataUser, 'version'>): UserDataDoc => ({
  _id: u.id,
  name: u.name,
  email: u.email,
  createdAt: new Date(u.createdAt),
  updatedAt: new Date(u.updatedAt),
  version: 1,
  activitySeq: 0,
});

export const userDataRecord = (d: Omit<UserDataDoc, 'activitySeq'>): DataUser => ({
  id: d._id as ObjectIdString,
  name: d.name,
  email: d.email,
  createdAt: d.createdAt.toISOString(),
  updatedAt: d.updatedAt.toISOString(),
  version: d.version,
});

/** Every field but the activity counter. */
export const USER_FIELDS = { activitySeq: 0 } as const;

/** The user at `version`: a conditional update applies only there. */
export const userAtVersion = (id: ObjectIdString, version: number): Filter<UserDataDoc> => ({ _id: id, version });

export function userUpdate(changes: UserChanges): UpdateFilter<UserDataDoc> {
  return {
    $set: {
      ...(changes.name === undefined ? {} : { name: changes.name }),
      ...(changes.email === undefined ? {} : { email: changes.email }),
      updatedAt: new Date(changes.updatedAt),
    },
    $inc: { version: 1 },
  };
}

/** Takes the next activity seq of the user (none when the user does not exist). */
export const NEXT_ACTIVITY_SEQ: UpdateFilter<UserDataDoc> = { $inc: { activitySeq: 1 } };

export const USER_INDEXES: CollectionIndexes = {
  user_data: [{ key: { email: 1 }, name: 'user_data_email', unique: true, collation: EMAIL_COLLATION }],
};
