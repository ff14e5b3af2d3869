/** Port: the users of the user-data service. */
import type { ObjectIdString } from '../ids.ts';

export interface UserRecord {
  readonly id: ObjectIdString;
  readonly name: string;
  /** As given; unique compared case-insensitively. */
  readonly email: string;
  /** ISO-8601. */
  readonly createdAt: string;
  /** ISO-8601. */
  readonly updatedAt: string;
  /** 1 on creation, + 1 on every change. */
  readonly version: number;
}

export interface UserChanges {
  readonly name?: string | undefined;
  readonly email?: string | undefined;
  /** ISO-8601. */
  readonly updatedAt: string;
}

/** Expected outcomes of a write; faults (a broken database) are thrown. */
export type WriteResult =
  | { readonly ok: true; readonly user: UserRecord }
  | { readonly ok: false; readonly reason: 'email_taken' | 'not_found' | 'version_conflict' };

export interface UserStore {
  find(id: ObjectIdString): Promise<UserRecord | undefined>;
  /** Inserts a new user at version 1; `email_taken` when another user has the email in any case. */
  insert(user: Omit<UserRecord, 'version'>): Promise<WriteResult>;
  /**
   * Applies the changes and increments the version, only if the user is at `expectedVersion`
   * (`version_conflict` otherwise).
   */
  update(id: ObjectIdString, expectedVersion: number, changes: UserChanges): Promise<WriteResult>;
  /** Deletes the user and, in the same transaction, its activity. The deleted user, if any. */
  delete(id: ObjectIdString): Promise<UserRecord | undefined>;
}
