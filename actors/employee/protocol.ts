/**
 * EmployeeActor: employee records over an `EmployeeStore` (SQLite or MongoDB). Build messages with
 * the functions below and send them with `ask`.
 */
import { z } from 'zod';
import { pageLimit, objectId, version, type MessageExamples, type MessageSchemas } from '../../src/fields.ts';
import type { RequestOf } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import type { ObjectIdString } from '../../src/ids.ts';
import type {
  EmployeeChanges,
  EmployeeRecord,
  EmployeeSearch,
  NewEmployee,
  SearchKey,
} from '../../src/stores/employee-store.ts';

export type { EmployeeChanges, EmployeeRecord, EmployeeSearch, NewEmployee, SearchKey };

export type ErrorCode =
  | 'employee.not_found' // no record with that id
  | 'employee.version_conflict'; // the record is not at the version the caller expected (If-Match)

/** One page of a search. */
export interface SearchPage {
  readonly items: readonly EmployeeRecord[];
  /** The last item's position, to pass as `after` for the next page; null after the last match. */
  readonly next: SearchKey | null;
}

export type CreateReply = Reply<EmployeeRecord>;
export type GetReply = Reply<EmployeeRecord, 'employee.not_found'>;
export type SearchReply = Reply<SearchPage>;
export type UpdateReply = Reply<EmployeeRecord, ErrorCode>;
export type DeleteReply = Reply<{ readonly id: ObjectIdString }, 'employee.not_found'>;

export type Command =
  | { readonly type: 'Create'; readonly employee: NewEmployee; readonly sender: Ref<CreateReply> }
  | { readonly type: 'Get'; readonly id: ObjectIdString; readonly sender: Ref<GetReply> }
  | { readonly type: 'Search'; readonly criteria: EmployeeSearch; readonly sender: Ref<SearchReply> }
  | {
      readonly type: 'Update';
      readonly id: ObjectIdString;
      readonly changes: EmployeeChanges;
      /** Undefined: whatever the current version. */
      readonly expectedVersion: number | undefined;
      readonly sender: Ref<UpdateReply>;
    }
  | { readonly type: 'Delete'; readonly id: ObjectIdString; readonly sender: Ref<DeleteReply> };

/** Stores a new record (version 1). The input is already valid (trimmed name, real past date). */
export const create =
  (employee: NewEmployee): RequestOf<Command, 'Create'> =>
  (sender) => ({ type: 'Create', employee, sender });

export const get =
  (p: { id: ObjectIdString }): RequestOf<Command, 'Get'> =>
  (sender) => ({ type: 'Get', id: p.id, sender });

/** One page of matches, ordered by name (case-insensitively) then id. */
export const search =
  (criteria: EmployeeSearch): RequestOf<Command, 'Search'> =>
  (sender) => ({ type: 'Search', criteria, sender });

/** Applies `changes` and bumps the version; with `expectedVersion`, only if the record is at it. */
export const update =
  (p: {
    id: ObjectIdString;
    changes: EmployeeChanges;
    expectedVersion?: number | undefined;
  }): RequestOf<Command, 'Update'> =>
  (sender) => ({ type: 'Update', id: p.id, changes: p.changes, expectedVersion: p.expectedVersion, sender });

/**
 * Deletes the record. Exported as `delete` too, the name `User.delete` has: `Employee.delete({ id })`
 * is the one the REPL shows; `remove` stays as its older name.
 */
export const remove =
  (p: { id: ObjectIdString }): RequestOf<Command, 'Delete'> =>
  (sender) => ({ type: 'Delete', id: p.id, sender });
export { remove as delete };

const EARLIEST_BIRTH = '1900-01-01';
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Today's date in UTC, `YYYY-MM-DD`: a birth date may be today, not later. */
const today = (): string => new Date().toISOString().slice(0, 10);

/**
 * Why `s` is not a real calendar date `YYYY-MM-DD`, or undefined when it is one. Every four-digit
 * year is accepted, 0000 to 9999 (proleptic Gregorian, as ISO 8601): the date is built with
 * `setUTCFullYear`, because `Date.UTC` reads the years 0–99 as 1900–1999 and would call
 * `0050-01-01` no calendar date.
 */
function dateProblem(s: string): string | undefined {
  const m = DATE.exec(s);
  if (!m) return 'must be a date YYYY-MM-DD';
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  const real = date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
  return real ? undefined : 'is not a calendar date';
}

function birthProblem(s: string): string | undefined {
  const problem = dateProblem(s);
  if (problem) return problem;
  if (s < EARLIEST_BIRTH) return `must not be before ${EARLIEST_BIRTH}`;
  return s > today() ? 'must not be in the future' : undefined;
}

const checked =
  (problemOf: (s: string) => string | undefined) =>
  (s: string, ctx: z.RefinementCtx): void => {
    const message = problemOf(s);
    if (message) ctx.addIssue({ code: 'custom', message });
  };

/** A string; the error says `is required` when it is missing, else `must be <what>`. */
const text = (what: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? 'is required' : `must be ${what}`) });

/** The fields of the employee messages as every caller must give them (HTTP validates its input with these too). */
export const fields = {
  /**
   * Trimmed and in Unicode normal form C (one spelling of `é`, whichever the client sent), 1–200
   * characters, none of them a control character (NUL, line breaks, ESC, DEL…): a name is one line
   * of text, stored, compared and searched in one form, and MongoDB refuses a NUL in the search's
   * regular expression.
   */
  name: text('a string')
    .trim()
    .overwrite((s) => s.normalize('NFC'))
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters')
    .regex(/^\P{Cc}*$/u, 'must not contain control characters'),
  /** A real date, from 1900-01-01 to today. */
  dateOfBirth: text('a date YYYY-MM-DD').superRefine(checked(birthProblem)),
  /** A real date, 0000-01-01 to 9999-12-31 (search bounds). */
  date: text('a date YYYY-MM-DD').superRefine(checked(dateProblem)),
  /** A record id (either case; lowercased). */
  id: objectId,
  /** How many records a page holds. */
  limit: pageLimit,
} as const;

/** The search criteria but the position to continue from (a message's `after`, an HTTP request's `cursor`). */
export const searchFields = {
  name: fields.name.optional(),
  id: fields.id.optional(),
  bornFrom: fields.date.optional(),
  bornTo: fields.date.optional(),
  limit: fields.limit.default(50),
} as const;

/** A search's date bounds are in order. */
export const datesInOrder = <
  S extends z.ZodType<{ readonly bornFrom?: string | undefined; readonly bornTo?: string | undefined }>,
>(
  schema: S,
): S =>
  schema.refine((s) => s.bornFrom === undefined || s.bornTo === undefined || s.bornFrom <= s.bornTo, {
    path: ['bornTo'],
    message: 'must not be before bornFrom',
  });

/** The fields an update may replace. */
export const changeFields = { name: fields.name.optional(), dateOfBirth: fields.dateOfBirth.optional() } as const;

/** An update replaces the name, the date of birth, or both. */
export const changing = <
  S extends z.ZodType<{ readonly name?: string | undefined; readonly dateOfBirth?: string | undefined }>,
>(
  schema: S,
): S =>
  schema.refine((u) => u.name !== undefined || u.dateOfBirth !== undefined, {
    message: 'name or dateOfBirth is required',
  });

/** A new record's fields: what POST /api/employee/create takes, and a Create message carries. */
export const NewEmployeeInput = z.strictObject({ name: fields.name, dateOfBirth: fields.dateOfBirth });

/**
 * What makes each message valid besides its `type` and `sender`, with the fields HTTP validates
 * its input with. A new message kind without a schema fails to compile.
 */
export const schemas = {
  Create: z.strictObject({ employee: NewEmployeeInput }),
  Get: z.strictObject({ id: fields.id }),
  Search: z.strictObject({
    criteria: datesInOrder(
      z.strictObject({ ...searchFields, after: z.strictObject({ nameKey: z.string(), id: objectId }).optional() }),
    ),
  }),
  Update: z.strictObject({
    id: fields.id,
    changes: changing(z.strictObject(changeFields)),
    expectedVersion: version.optional(),
  }),
  Delete: z.strictObject({ id: fields.id }),
} as const satisfies MessageSchemas<Command>;

/** What the REPL's `.protocol employees` lists: {@link MessageExamples}. */
export const examples = {
  Create: "Employee.create({ name: 'Jane Roe', dateOfBirth: '1990-04-12' })",
  Get: "Employee.get({ id: '6b0233279e487a81ed925ceb' })",
  Search: "Employee.search({ name: 'roe', limit: 10 })",
  Update: "Employee.update({ id: '6b0233279e487a81ed925ceb', changes: { name: 'Jane A. Roe' }, expectedVersion: 1 })",
  Delete: "Employee.delete({ id: '6b0233279e487a81ed925ceb' })",
} as const satisfies MessageExamples<Command>;
