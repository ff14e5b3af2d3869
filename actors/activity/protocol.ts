/**
 * ActivityActor: one per user id, spawned on demand under the activity router (`router.ts`),
 * stopped when idle and spawned again on the next message. Build messages with the functions below
 * and send them to the router's ref with `ask`.
 */
import type { Request } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import type { ObjectIdString } from '../../src/ids.ts';

export type ErrorCode =
  | 'activity.user_not_found'; // recording for a user that does not exist (or was just deleted)

/** A JSON object. */
export type Detail = { readonly [key: string]: unknown };

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
  | { readonly type: 'Record'; readonly userId: ObjectIdString; readonly activityType: string; readonly detail: Detail; readonly sender: Ref<RecordReply> }
  | {
    readonly type: 'History'; readonly userId: ObjectIdString; readonly limit: number;
    /** From a previous page's `next`; undefined for the newest page. */
    readonly before: number | undefined; readonly sender: Ref<HistoryReply>;
  };

/**
 * What the router accepts: the ActivityActor's messages (routed to the user's child) and
 * `Forget`, sent when the user is deleted: the child drops its cache and stops.
 */
export type RouterCommand =
  | Command
  | { readonly type: 'Forget'; readonly userId: ObjectIdString; readonly sender: Ref<ForgetReply> };

/** Appends an activity to the user's history. */
export const record = (p: { userId: ObjectIdString; type: string; detail?: Detail | undefined }): Request<Command, RecordReply> =>
  (sender) => ({ type: 'Record', userId: p.userId, activityType: p.type, detail: p.detail ?? {}, sender });

/** One page of the user's history, newest first. */
export const history = (p: { userId: ObjectIdString; limit: number; before?: number | undefined }): Request<Command, HistoryReply> =>
  (sender) => ({ type: 'History', userId: p.userId, limit: p.limit, before: p.before, sender });

/** The user is gone: its actor drops its cache and stops. */
export const forget = (userId: ObjectIdString): Request<RouterCommand, ForgetReply> =>
  (sender) => ({ type: 'Forget', userId, sender });

/**
 * One call per message kind the router accepts, as a REPL user would type it
 * (`await ask(activity, <example>)`); the REPL's `.protocol activity` lists them. A new message
 * kind without an example fails to compile.
 */
export const examples = {
  Record: "Activity.record({ userId: '6b0233279e487a81ed925cc1', type: 'PASSWORD_CHANGED', detail: { via: 'email' } })",
  History: "Activity.history({ userId: '6b0233279e487a81ed925cc1', limit: 10 })",
  Forget: "Activity.forget('6b0233279e487a81ed925cc1')",
} as const satisfies Record<RouterCommand['type'], string>;
