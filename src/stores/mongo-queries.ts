/**
 * Every filter, update and index the MongoDB adapters send (employees aside: `employee-query.ts`),
 * as pure functions of their inputs, so that they are tested on every run, where no MongoDB server
 * is at hand too. The adapters only pass these to the driver and map documents to records.
 */
import type { Filter, IndexDescription, Sort, UpdateFilter } from 'mongodb';
import type { ObjectIdString } from '../ids.ts';
import type { ActivityRecord } from './activity-store.ts';
import type { RefreshTokenRecord } from './refresh-token-store.ts';
import type { Revocation } from './revocation-store.ts';
import type { UserChanges, UserRecord as DataUser } from './user-store.ts';

// ---- users and roles of the secured service (collections `roles` and `users`) ----------------

export interface RoleDoc {
  _id: number;
  roleName: string;
  description: string;
}
export interface AccountDoc {
  _id: number;
  username: string;
  password: string;
  firstName: string;
  lastName: string;
  roleIds: number[];
  /** Absent on accounts saved before accounts could be disabled: enabled. */
  enabled?: boolean;
}

export const roleByName = (roleName: string): Filter<RoleDoc> => ({ roleName });

/**
 * Creates the role with `id` when no role has the name, else sets its description (when given).
 * Upserted by name: processes starting together create each role once (a unique index on the name).
 */
export function roleUpsert(
  role: { roleName: string; description?: string | undefined },
  id: number,
): UpdateFilter<RoleDoc> {
  return role.description === undefined
    ? { $setOnInsert: { _id: id, description: '' } }
    : { $setOnInsert: { _id: id }, $set: { description: role.description } };
}

export const accountByName = (username: string): Filter<AccountDoc> => ({ username });

/** Creates the user with `id` when no user has the name, else replaces its fields and role set. */
export function accountUpsert(
  user: { password: string; firstName?: string | undefined; lastName?: string | undefined },
  roleIds: readonly number[],
  id: number,
): UpdateFilter<AccountDoc> {
  return {
    $set: {
      password: user.password,
      firstName: user.firstName ?? '',
      lastName: user.lastName ?? '',
      roleIds: [...roleIds],
    },
    $setOnInsert: { _id: id },
  };
}

/** The counter that moves with every change this service makes to users or roles (`counters` collection). */
export const CREDENTIAL_CHANGES = 'credential-changes';

export const rolesByIds = (ids: readonly number[]): Filter<RoleDoc> => ({ _id: { $in: [...ids] } });

/** Users and roles in id order. */
export const BY_ID: Sort = { _id: 1 };
/** The highest id first: the next one is one more. */
export const BY_NEWEST_ID: Sort = { _id: -1 };

// ---- refresh tokens (collection `refresh_tokens`) --------------------------------------------

export interface RefreshTokenDoc {
  _id: string;
  familyId: string;
  clientId: string;
  username: string;
  scope: string[];
  issuedAt: number;
  expiresAt: number;
  usedAt: number | null;
  revokedAt: number | null;
  /** Absent on documents written before it was recorded. */
  accessExpiresAt?: number | null;
  /** Absent on documents written before it was recorded (read as 0). */
  generation?: number;
}

export const refreshTokenDoc = (r: RefreshTokenRecord): RefreshTokenDoc => ({
  _id: r.tokenHash,
  familyId: r.familyId,
  clientId: r.clientId,
  username: r.username,
  scope: [...r.scope],
  issuedAt: r.issuedAt,
  expiresAt: r.expiresAt,
  usedAt: r.usedAt,
  revokedAt: r.revokedAt,
  accessExpiresAt: r.accessExpiresAt,
  generation: r.generation,
});

export const refreshTokenRecord = (d: RefreshTokenDoc): RefreshTokenRecord => ({
  tokenHash: d._id,
  familyId: d.familyId,
  clientId: d.clientId,
  username: d.username,
  scope: d.scope,
  issuedAt: d.issuedAt,
  expiresAt: d.expiresAt,
  usedAt: d.usedAt,
  revokedAt: d.revokedAt,
  accessExpiresAt: d.accessExpiresAt ?? null,
  generation: d.generation ?? 0,
});

/** The latest access-token expiry of a family's documents; undefined when one lacks it or there are none. */
export function familyAccessHorizon(docs: readonly Pick<RefreshTokenDoc, 'accessExpiresAt'>[]): number | undefined {
  let latest: number | undefined;
  for (const d of docs) {
    if (typeof d.accessExpiresAt !== 'number') return undefined;
    latest = Math.max(latest ?? d.accessExpiresAt, d.accessExpiresAt);
  }
  return latest;
}

/** The token while it is neither used nor revoked: marking it used wins the rotation exactly once. */
export const unspentToken = (tokenHash: string): Filter<RefreshTokenDoc> => ({
  _id: tokenHash,
  usedAt: null,
  revokedAt: null,
});
export const markUsed = (at: number): UpdateFilter<RefreshTokenDoc> => ({ $set: { usedAt: at } });
export const liveInFamily = (familyId: string): Filter<RefreshTokenDoc> => ({ familyId, revokedAt: null });
export const markRevoked = (at: number): UpdateFilter<RefreshTokenDoc> => ({ $set: { revokedAt: at } });
export const expiredBefore = (now: number): Filter<RefreshTokenDoc> => ({ expiresAt: { $lt: now } });

// ---- revocations (collection `revocations`) ---------------------------------------------------

export interface RevocationDoc {
  _id: string;
  kind: Revocation['kind'];
  id: string;
  expiresAt: number;
  addedAt: Date;
  /** For a token: the login it was issued in, when it has one. */
  loginId?: string;
  /** For an account: its tokens issued before this (an earlier `iat`, epoch seconds) are refused. */
  issuedBefore?: number;
}

/** Entries are read again this long after their `addedAt`: a write may become visible after a later one. */
export const REVOCATION_OVERLAP_MS = 30_000;

export const revocationKey = (r: Pick<Revocation, 'kind' | 'id'>): string => `${r.kind}:${r.id}`;

/** Insert, or keep the later expiry; `addedAt` (the server's clock, one for every instance) moves, so readers see it again. */
export function revocationUpsert(r: Revocation): UpdateFilter<RevocationDoc> {
  return {
    $setOnInsert: { kind: r.kind, id: r.id, ...(r.loginId === undefined ? {} : { loginId: r.loginId }) },
    $max: { expiresAt: r.expiresAt, ...(r.issuedBefore === undefined ? {} : { issuedBefore: r.issuedBefore }) },
    $currentDate: { addedAt: true },
  };
}

/** What was added since `cursorMs` (the newest `addedAt` seen), with an overlap for late writes. */
export const addedSince = (cursorMs: number): Filter<RevocationDoc> =>
  cursorMs <= 0 ? {} : { addedAt: { $gt: new Date(cursorMs - REVOCATION_OVERLAP_MS) } };

export const revocationExpiredBefore = (now: number): Filter<RevocationDoc> => ({ expiresAt: { $lt: now } });

// ---- user data and activity (collections `user_data` and `user_activity`) ---------------------

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
export interface ActivityDoc {
  _id: string;
  userId: string;
  seq: number;
  type: string;
  detailJson: string;
  at: Date;
}

/** Emails are unique compared case-insensitively: a unique index with a strength-2 collation. */
export const EMAIL_COLLATION = { locale: 'en', strength: 2 } as const;

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
  detail: JSON.parse(d.detailJson) as ActivityRecord['detail'],
  at: d.at.toISOString(),
});

/** A page of the user's history, newest first, only before `beforeSeq` when given. */
export const activityPage = (userId: ObjectIdString, beforeSeq: number | undefined): Filter<ActivityDoc> =>
  beforeSeq === undefined ? { userId } : { userId, seq: { $lt: beforeSeq } };
export const NEWEST_FIRST: Sort = { seq: -1 };

// ---- login throttle (collections `login_throttle`, `login_known_pairs`) -----------------------

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

// ---- indexes, created at start-up (createIndexes is idempotent) --------------------------------

export const INDEXES: Readonly<Record<string, readonly IndexDescription[]>> = {
  roles: [{ key: { roleName: 1 }, name: 'roles_name', unique: true }],
  users: [{ key: { username: 1 }, name: 'users_username', unique: true }],
  refresh_tokens: [
    { key: { familyId: 1 }, name: 'refresh_tokens_family' },
    { key: { expiresAt: 1 }, name: 'refresh_tokens_expiry' },
    { key: { username: 1 }, name: 'refresh_tokens_user' },
  ],
  revocations: [
    { key: { addedAt: 1 }, name: 'revocations_added' },
    { key: { expiresAt: 1 }, name: 'revocations_expiry' },
    { key: { loginId: 1 }, name: 'revocations_login', sparse: true },
  ],
  user_data: [{ key: { email: 1 }, name: 'user_data_email', unique: true, collation: EMAIL_COLLATION }],
  user_activity: [{ key: { userId: 1, seq: -1 }, name: 'user_activity_user', unique: true }],
  // rate-limiter-flexible's RateLimiterMongo documents: one per key, removed by MongoDB once expired.
  login_throttle: [
    { key: { key: 1 }, name: 'login_throttle_key', unique: true },
    { key: { expire: -1 }, name: 'login_throttle_expire', expireAfterSeconds: 0 },
  ],
  login_known_pairs: [{ key: { seenAt: -1 }, name: 'login_known_pairs_seen' }],
  authorization_codes: [{ key: { expiresAt: 1 }, name: 'authorization_codes_expiry' }],
};
