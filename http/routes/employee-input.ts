/** The employee service's request shapes (§3 of the contract), as zod schemas. */
import { z } from 'zod';
import type { ObjectIdString } from '../../src/ids.ts';
import { searchKeyOf } from '../cursors.ts';

const EARLIEST_BIRTH = '1900-01-01';
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Today's date in UTC, `YYYY-MM-DD`: a birth date may be today, not later. */
const today = (): string => new Date().toISOString().slice(0, 10);

/** Why `s` is not a real calendar date `YYYY-MM-DD`, or undefined when it is one. */
function dateProblem(s: string): string | undefined {
  const m = DATE.exec(s);
  if (!m) return 'must be a date YYYY-MM-DD';
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  const real = date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
  return real ? undefined : 'is not a calendar date';
}

function birthProblem(s: string): string | undefined {
  const problem = dateProblem(s);
  if (problem) return problem;
  if (s < EARLIEST_BIRTH) return `must not be before ${EARLIEST_BIRTH}`;
  return s > today() ? 'must not be in the future' : undefined;
}

const checked = (problemOf: (s: string) => string | undefined) => (s: string, ctx: z.RefinementCtx): void => {
  const message = problemOf(s);
  if (message) ctx.addIssue({ code: 'custom', message });
};

const text = (what: string) => z.string({ error: (issue) => (issue.input === undefined ? 'is required' : `must be ${what}`) });

/** A name: trimmed, 1–200 characters. */
const name = text('a string').trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
/** A date of birth: a real date, from 1900-01-01 to today. */
const dateOfBirth = text('a date YYYY-MM-DD').superRefine(checked(birthProblem));
const date = text('a date YYYY-MM-DD').superRefine(checked(dateProblem));
/** An id of the ObjectId form (either case; lowercased). */
const id = text('an id of 24 hexadecimal characters').regex(/^[0-9a-fA-F]{24}$/, 'must be 24 hexadecimal characters')
  .transform((s) => s.toLowerCase() as ObjectIdString);

const cursor = text('a cursor').transform((s, ctx) => {
  const key = searchKeyOf(s);
  if (!key) ctx.addIssue({ code: 'custom', message: 'is not a cursor from a previous page' });
  return key ?? z.NEVER;
});

export const CreateInput = z.strictObject({ name, dateOfBirth });

export const SearchInput = z.strictObject({
  name: name.optional(),
  id: id.optional(),
  bornFrom: date.optional(),
  bornTo: date.optional(),
  limit: z.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(500, 'must be at most 500').default(50),
  cursor: cursor.optional(),
}).refine((s) => s.bornFrom === undefined || s.bornTo === undefined || s.bornFrom <= s.bornTo,
  { path: ['bornTo'], message: 'must not be before bornFrom' });

/** Where an id may travel: the query string, or a JSON body. */
export const IdQuery = z.strictObject({ id: id.optional() });

export const UpdateInput = z.strictObject({ id: id.optional(), name: name.optional(), dateOfBirth: dateOfBirth.optional() })
  .refine((u) => u.name !== undefined || u.dateOfBirth !== undefined, { path: ['(body)'], message: 'name or dateOfBirth is required' });
