/**
 * What the protocols share to say which messages are valid (zod): the fields several of them use,
 * and the type of a protocol's table of message schemas. HTTP builds its request schemas from the
 * same fields, so a message typed in the REPL and an HTTP request meet one rule.
 */
import { z } from 'zod';
import { OBJECT_ID, type ObjectIdString } from './ids.ts';

/**
 * A record id, the one id schema of every service: the ObjectId form, 24 hexadecimal characters of
 * either case, read as lower case (the form ids are stored and sent in). A string schema, so that it
 * documents itself in OpenAPI; its output is the branded id.
 */
export const objectId = z
  .string({
    error: (issue) => (issue.input === undefined ? 'is required' : 'must be an id of 24 hexadecimal characters'),
  })
  // one error, not two
  .regex(new RegExp(OBJECT_ID.source, 'i'), { message: 'must be 24 hexadecimal characters', abort: true })
  .transform((id) => id.toLowerCase() as ObjectIdString);

/** How many records a page holds: 1 to 500. */
export const pageLimit = z
  .number({ error: 'must be a number' })
  .int('must be a whole number')
  .min(1, 'must be at least 1')
  .max(500, 'must be at most 500');

/**
 * An email address: trimmed; a practical address (ASCII, so that lower-casing compares every case) of
 * at most 254 characters. A user's of the user-data service and an account's meet this one rule.
 */
export const email = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email('must be an email address'));

/** The version a write expects the record to be at (what `If-Match: "3"` names over HTTP). */
export const version = z
  .number({ error: 'must be a version number' })
  .int('must be a whole number')
  .min(0, 'must not be negative');

/** A field that may hold undefined may also be left out. */
type Loose<T> = { [K in keyof T as undefined extends T[K] ? K : never]?: T[K] } & {
  [K in keyof T as undefined extends T[K] ? never : K]: T[K];
};

/** A message's own fields: all but its `type` and its `sender`. */
export type MessageFields<M> = Loose<Omit<M, 'type' | 'sender'>>;

/**
 * For each message kind of a protocol, the schema of its fields: what a caller that builds messages
 * from untyped input (the REPL) checks before it sends one. The actors trust their messages, which
 * typed callers (HTTP, after validating its own input) build with the protocol's functions.
 */
export type MessageSchemas<C extends { readonly type: string }> = {
  readonly [K in C['type']]: z.ZodType<MessageFields<Extract<C, { readonly type: K }>>>;
};

/**
 * For each message kind of a protocol, a call as a REPL user would type it (`await ask(<actor>,
 * <example>)`), or several (one per variant); the REPL's `.protocol <actor>` lists them. A new
 * message kind without an example fails to compile.
 */
export type MessageExamples<C extends { readonly type: string }> = {
  readonly [K in C['type']]: string | readonly [string, ...string[]];
};
