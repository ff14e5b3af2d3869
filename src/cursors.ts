/**
 * The page cursors: opaque strings (base64url JSON) that clients pass back unchanged. Actors take
 * and return typed positions (an employee search key, an activity sequence number); HTTP, and the
 * REPL beside it, turn a position into a cursor and a cursor back into a position.
 */
import { z } from 'zod';
import { isObjectId, type ObjectIdString } from './ids.ts';
import type { SearchKey } from './stores/employee-store.ts';

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** The decoded value, or undefined when the cursor is not one of ours. */
function decode(cursor: string): unknown {
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) return undefined;
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The cursor after an employee search page: the position of its last item. */
export const searchCursor = (key: SearchKey): string => encode({ n: key.nameKey, i: key.id });

/** The search position of a cursor made by {@link searchCursor}, or undefined for anything else. */
export function searchKeyOf(cursor: string): SearchKey | undefined {
  const value = decode(cursor);
  if (typeof value !== 'object' || value === null) return undefined;
  const { n, i } = value as { n?: unknown; i?: unknown };
  return typeof n === 'string' && isObjectId(i) ? { nameKey: n, id: i } : undefined;
}

const historyShape = z.strictObject({ u: z.string(), s: z.number().int().positive() });

/** The cursor after a page of one user's activity: bound to the user, so it pages no other history. */
export const historyCursor = (userId: ObjectIdString, seq: number): string => encode({ u: userId, s: seq });

/** The position in this user's history of a cursor made by {@link historyCursor}, or undefined for anything else. */
export function historySeqOf(cursor: string, userId: ObjectIdString): number | undefined {
  const parsed = historyShape.safeParse(decode(cursor));
  return parsed.success && parsed.data.u === userId ? parsed.data.s : undefined;
}

const accountShape = z.strictObject({ a: z.number().int().positive() });

/** The cursor after a page of accounts: the id of its last account. */
export const accountCursor = (id: number): string => encode({ a: id });

/** The account id of a cursor made by {@link accountCursor}, or undefined for anything else. */
export function accountIdOf(cursor: string): number | undefined {
  const parsed = accountShape.safeParse(decode(cursor));
  return parsed.success ? parsed.data.a : undefined;
}
