/** Request fields shared by the user-data routes (user.ts and activity.ts). */
import { z } from 'zod';
import { isObjectId, OBJECT_ID, type ObjectIdString } from '../../src/ids.ts';

const ID_MESSAGE = 'must be an id of 24 lowercase hexadecimal characters';

/** A string schema (so that it documents itself in OpenAPI) whose output is the branded id. */
export const objectId = z.string({ error: ID_MESSAGE }).regex(OBJECT_ID, { message: ID_MESSAGE, abort: true }) // one error, not two
  .refine((v): v is ObjectIdString => isObjectId(v), ID_MESSAGE);

/** Trimmed, 1–200 characters. */
export const userName = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

/** Trimmed; a practical address (ASCII, so that lower-casing compares every case) of at most 254 characters. */
export const userEmail = z.string().trim().max(254, 'must be at most 254 characters').pipe(z.email('must be an email address'));

/** What the user-data routes need from the app. */
export interface UserDataRouteOptions {
  readonly askTimeoutMs: number;
  readonly maxBodyBytes: number;
  readonly realm: string;
  readonly scopeRead: string;
  readonly scopeWrite: string;
}
