/**
 * ActivityActor: one per user id, spawned on demand under the activity router (`router.ts`),
 * stopped when idle and spawned again on the next message. Build messages with the functions below
 * and send them to the router's ref with `ask`.
 */
import { z } from 'zod';
import { pageLimit, objectId, type MessageExamples, type MessageSchemas } from '../../src/fields.ts';
import type { RequestOf } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import type { ObjectIdString } from '../../src/ids.ts';
import type { ActivityDetail } from '../../src/stores/activity-store.ts';

export type ErrorCode = 'user.not_found'; // recording for a user that does not exist (or was just deleted)

/** A JSON object: the detail as the activity store keeps it. */
export type Detail = ActivityDetail;

export interface Activity {
  readonly id: ObjectIdString;
  readonly userId: ObjectIdString;
  /** UPPER_SNAKE, such as `USER_CREATED`. */
  readonly type: string;
  readonly detail: Detail;
  /** ISO-8601. */
  readonly at: string;
}

export interface HistoryPage {
  /** Newest first. */
  readonly activities: readonly Activity[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  readonly next: number | null;
}

/** Recorded by the service itself; clients cannot record these types. */
export const USER_CREATED = 'USER_CREATED';
export const USER_UPDATED = 'USER_UPDATED';

export type RecordReply = Reply<Activity, ErrorCode>;
export type HistoryReply = Reply<HistoryPage>;
export type ForgetReply = Reply<null>;

/** The messages of one user's ActivityActor. */
export type Command =
  | {
      readonly type: 'Record';
      readonly userId: ObjectIdString;
      readonly activityType: string;
      readonly detail: Detail;
      readonly sender: Ref<RecordReply>;
    }
  | {
      readonly type: 'History';
      readonly userId: ObjectIdString;
      readonly limit: number;
      /** From a previous page's `next`; undefined for the newest page. */
      readonly before: number | undefined;
      readonly sender: Ref<HistoryReply>;
    };

/**
 * What the router accepts: the ActivityActor's messages (routed to the user's child) and
 * `Forget`, sent when the user is deleted: the child drops its cache and stops.
 */
export type RouterCommand =
  Command | { readonly type: 'Forget'; readonly userId: ObjectIdString; readonly sender: Ref<ForgetReply> };

/** Appends an activity to the user's history. */
export const record =
  (p: { userId: ObjectIdString; type: string; detail?: Detail | undefined }): RequestOf<Command, 'Record'> =>
  (sender) => ({ type: 'Record', userId: p.userId, activityType: p.type, detail: p.detail ?? {}, sender });

/** One page of the user's history, newest first. */
export const history =
  (p: { userId: ObjectIdString; limit: number; before?: number | undefined }): RequestOf<Command, 'History'> =>
  (sender) => ({ type: 'History', userId: p.userId, limit: p.limit, before: p.before, sender });

/** The user is gone: its actor drops its cache and stops. */
export const forget =
  (p: { userId: ObjectIdString }): RequestOf<RouterCommand, 'Forget'> =>
  (sender) => ({ type: 'Forget', userId: p.userId, sender });

const DETAIL_MAX_BYTES = 4096;
const RESERVED_TYPES: readonly string[] = [USER_CREATED, USER_UPDATED];

/**
 * UTF-8 size of `value` as JSON. JSON.parse accepts nesting far deeper than JSON.stringify can
 * write back (it overflows the stack); such a value is far over any size limit anyway.
 */
function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value), 'utf8');
  } catch {
    return Infinity;
  }
}

/** The fields of a client's activity messages (HTTP validates its input with these too). */
export const fields = {
  /** A type a client may record: UPPER_SNAKE_CASE, and not one the service records itself. */
  type: z
    .string()
    .min(1, 'must not be empty')
    .max(64, 'must be at most 64 characters')
    .regex(/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/, 'must be UPPER_SNAKE_CASE, such as PASSWORD_CHANGED')
    .refine((t) => !RESERVED_TYPES.includes(t), 'is recorded by the service itself'),
  /** A JSON object of at most 4 KiB. */
  detail: z
    .record(z.string(), z.unknown(), 'must be a JSON object')
    .refine((d) => jsonBytes(d) <= DETAIL_MAX_BYTES, `must be at most ${DETAIL_MAX_BYTES} bytes as JSON`),
  /** How many activities a page holds. */
  limit: pageLimit,
} as const;

/**
 * What makes each message valid besides its `type` and `sender`; HTTP validates its input with
 * the same fields. A new message kind without a schema fails to compile.
 */
export const schemas = {
  Record: z.strictObject({ userId: objectId, activityType: fields.type, detail: fields.detail.default({}) }),
  History: z.strictObject({
    userId: objectId,
    limit: fields.limit,
    before: z
      .number({ error: 'must be a number' })
      .int('must be a whole number')
      .positive('must be positive')
      .optional(),
  }),
  Forget: z.strictObject({ userId: objectId }),
} as const satisfies MessageSchemas<RouterCommand>;

/** What the REPL's `.protocol activity` lists (the router's kinds): {@link MessageExamples}. */
export const examples = {
  Record: "Activity.record({ userId: '6b0233279e487a81ed925cc1', type: 'PASSWORD_CHANGED', detail: { via: 'email' } })",
  History: "Activity.history({ userId: '6b0233279e487a81ed925cc1', limit: 10 })",
  Forget: "Activity.forget({ userId: '6b0233279e487a81ed925cc1' })",
} as const satisfies MessageExamples<RouterCommand>;
