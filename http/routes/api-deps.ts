/** What the /api routes (user.ts, activity.ts, employee.ts) share. */
import type { Access } from '../guards.ts';

/** What the /api routes need from the app, their access declarations included. */
export interface ApiRouteDeps {
  readonly askTimeoutMs: number;
  readonly maxBodyBytes: number;
  /** Who may read, and who may write (a token with the read or write scope, unless the API is open). */
  readonly read: Access;
  readonly write: Access;
}
