/** Request fields shared by the user-data routes (user.ts and activity.ts). */
import { z } from 'zod';
import type { Access } from '../routing.ts';
import { isObjectId, OBJECT_ID, type ObjectIdString } from '../../src/ids.ts';

const ID_MESSAGE = 'must be an id of 24 lowercase hexadecimal characters';

/** A string schema (so that it documents itself in OpenAPI) whose output is the branded id. */
export const objectId = z.string({ error: ID_MESSAGE }).regex(OBJECT_ID, { message: ID_MESSAGE, abort: true }) // one error, not two
  .refine((v): v is ObjectIdString => isObjectId(v), ID_MESSAGE);

/** Trimmed, 1–200 characters. */
export const userName = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

/** Trimmed; a practical address (ASCII, so that lower-casing compares every case) of at most 254 characters. */
export const userEmail = z.string().trim().max(254, 'must be at most 254 characters').pipe(z.email('must be an email address'));

/** What the /api routes need from the app, their access declarations included. */
export interface ApiRouteOptions {
  readonly askTimeoutMs: number;
  readonly maxBodyBytes: number;
  /** Who may read, and who may write (a token with the read or write scope, unless the API is open). */
  readonly read: Access;
  readonly write: Access;
}
