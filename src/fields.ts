/**
 * What the protocols share to say which messages are valid (zod): the fields several of them use,
 * and the type of a protocol's table of message schemas. HTTP builds its request schemas from the
 * same fields, so a message typed in the REPL and an HTTP request meet one rule.
 */
import { z } from 'zod';
import { OBJECT_ID, type ObjectIdString } from './ids.ts';

const article = (noun: string): string => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);
/** zod's names of types where they are not words: an `int` is a whole number. */
const TYPE_WORDS: Readonly<Record<string, string>> = { int: 'whole number', bigint: 'whole number', nan: 'number' };
const count = (n: number | bigint, one: string): string => `${n} ${one}${n === 1 || n === 1n ? '' : 's'}`;

/** A bound as words: `at least 3 characters`, `at most 500`, `more than 0`. */
function bound(
  issue: { readonly origin: string; readonly inclusive?: boolean },
  limit: number | bigint,
  inclusive: readonly [string, string],
): string {
  const [within, beyond] = inclusive;
  const words = issue.inclusive === false ? beyond : within;
  if (issue.origin === 'string') return `must be ${words} ${count(limit, 'character')}`;
  if (issue.origin === 'array' || issue.origin === 'set') return `must have ${words} ${count(limit, 'item')}`;
  return `must be ${words} ${String(limit)}`;
}

/**
 * The house's words for an issue whose schema gives no message of its own, so that zod's defaults
 * (`Invalid input: expected string, received number`, `Unrecognized key: "salary"`) never reach a
 * caller: `is required`, `must be a number`, `is not a field of this request`. `noun` names what the
 * fields belong to: a `request` over HTTP, a `message` in the REPL. Pass as `safeParse`'s `error`.
 */
export const plainWords =
  (noun: string) =>
  (issue: z.core.$ZodRawIssue): string | undefined => {
    switch (issue.code) {
      case 'invalid_type':
        return issue.input === undefined
          ? 'is required'
          : `must be ${article(TYPE_WORDS[issue.expected] ?? issue.expected)}`;
      case 'unrecognized_keys':
        return issue.keys.length === 1 ? `is not a field of this ${noun}` : `are not fields of this ${noun}`;
      case 'invalid_value':
        return issue.values.length === 1
          ? `must be ${String(issue.values[0])}`
          : `must be one of ${issue.values.map(String).join(', ')}`;
      case 'too_small':
        return bound(issue, issue.minimum, ['at least', 'more than']);
      case 'too_big':
        return bound(issue, issue.maximum, ['at most', 'less than']);
      case 'invalid_format':
        return issue.format === 'email' ? 'must be an email address' : 'is not in the expected form';
      default:
        return 'is not valid';
    }
  };

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
