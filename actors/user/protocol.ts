/**
 * UserActor: the users of the user-data service. Its four message kinds are the original Get, Post,
 * Put and Delete; each carries the `sender`, and the actor answers by dispatching its reply to it.
 * Build messages with the functions below and send them with `ask`.
 */
import { z } from 'zod';
import { email, objectId, version, type MessageExamples, type MessageSchemas } from '../../src/fields.ts';
import type { RequestOf } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import type { ObjectIdString } from '../../src/ids.ts';
import type { UserRecord } from '../../src/stores/user-store.ts';

export type ErrorCode =
  | 'user.not_found' // no user with that id
  | 'user.email_taken' // another user has that email (compared case-insensitively)
  | 'user.version_conflict'; // the user is not at the version the caller expected (If-Match)

/** A user as the service answers it: the stored record. */
export type User = UserRecord;

export type GetReply = Reply<User, 'user.not_found'>;
export type PostReply = Reply<User, 'user.email_taken'>;
export type PutReply = Reply<User, ErrorCode>;
/** The deleted user. */
export type DeleteReply = Reply<User, 'user.not_found'>;

export type Command =
  | { readonly type: 'Get'; readonly id: ObjectIdString; readonly sender: Ref<GetReply> }
  | { readonly type: 'Post'; readonly name: string; readonly email: string; readonly sender: Ref<PostReply> }
  | {
      readonly type: 'Put';
      readonly id: ObjectIdString;
      readonly name: string | undefined;
      readonly email: string | undefined;
      /** Undefined: whatever the current version is. */
      readonly expectedVersion: number | undefined;
      readonly sender: Ref<PutReply>;
    }
  | { readonly type: 'Delete'; readonly id: ObjectIdString; readonly sender: Ref<DeleteReply> };

/** The user with this id. */
export const get =
  (p: { id: ObjectIdString }): RequestOf<Command, 'Get'> =>
  (sender) => ({ type: 'Get', id: p.id, sender });

/** Creates a user (and records USER_CREATED). */
export const post =
  (p: { name: string; email: string }): RequestOf<Command, 'Post'> =>
  (sender) => ({ type: 'Post', name: p.name, email: p.email, sender });

/** Changes the name and/or email (and records USER_UPDATED with the changed fields). */
export const put =
  (p: {
    id: ObjectIdString;
    name?: string | undefined;
    email?: string | undefined;
    expectedVersion?: number | undefined;
  }): RequestOf<Command, 'Put'> =>
  (sender) => ({ type: 'Put', id: p.id, name: p.name, email: p.email, expectedVersion: p.expectedVersion, sender });

/** Deletes the user and its activity. Exported as `delete`: `User.delete({ id })`. */
const remove =
  (p: { id: ObjectIdString }): RequestOf<Command, 'Delete'> =>
  (sender) => ({ type: 'Delete', id: p.id, sender });
export { remove as delete };

/** A user's fields as every caller must give them (HTTP validates its input with these too). */
export const fields = {
  /** Trimmed, 1–200 characters. */
  name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
  /** Trimmed; a practical address (ASCII, so that lower-casing compares every case) of at most 254 characters. */
  email,
} as const;

/** A change names a new name, a new email, or both. */
export const changing = <
  S extends z.ZodType<{ readonly name?: string | undefined; readonly email?: string | undefined }>,
>(
  schema: S,
): S => schema.refine((u) => u.name !== undefined || u.email !== undefined, { message: 'name or email is required' });

/**
 * What makes each message valid besides its `type` and `sender`; HTTP validates its input with
 * the same fields (`Post`'s schema is POST /api/user's body). A new message kind without a schema
 * fails to compile.
 */
export const schemas = {
  Get: z.strictObject({ id: objectId }),
  Post: z.strictObject({ name: fields.name, email: fields.email }),
  Put: changing(
    z.strictObject({
      id: objectId,
      name: fields.name.optional(),
      email: fields.email.optional(),
      expectedVersion: version.optional(),
    }),
  ),
  Delete: z.strictObject({ id: objectId }),
} as const satisfies MessageSchemas<Command>;

/** What the REPL's `.protocol users` lists: {@link MessageExamples}. */
export const examples = {
  Get: "User.get({ id: '6b0233279e487a81ed925cc1' })",
  Post: "User.post({ name: 'Ada Lovelace', email: 'ada@example.com' })",
  Put: "User.put({ id: '6b0233279e487a81ed925cc1', name: 'Ada King', expectedVersion: 1 })",
  Delete: "User.delete({ id: '6b0233279e487a81ed925cc1' })",
} as const satisfies MessageExamples<Command>;
