/** Port: the append-only activity history of the user-data service's users. */
import type { ObjectIdString } from '../ids.ts';

/** A JSON object. */
export type ActivityDetail = { readonly [key: string]: unknown };

export interface ActivityRecord {
  /** Monotonic across the store: a later append has a greater `seq`. Never shown to clients. */
  readonly seq: number;
  readonly id: ObjectIdString;
  readonly userId: ObjectIdString;
  /** UPPER_SNAKE. */
  readonly type: string;
  readonly detail: ActivityDetail;
  /** ISO-8601. */
  readonly at: string;
}

export interface ActivityPage {
  /** Newest first. */
  readonly items: readonly ActivityRecord[];
  /** Whether older activities exist beyond the last item. */
  readonly hasMore: boolean;
  /**
   * False when an append already numbered may still become visible among or above these items
   * (MongoDB numbers an append in one write and inserts it in another, so another process's later
   * append can be seen first): the page is right for now, but must not be kept as a cache.
   */
  readonly settled: boolean;
}

export interface ActivityStore {
  /** Appends an activity; undefined when the user does not exist (activities need their user). */
  append(activity: Omit<ActivityRecord, 'seq'>): Promise<ActivityRecord | undefined>;
  /** The `seq` of the user's newest activity, undefined when it has none: a cheap check of a cached history. */
  latestSeq(userId: ObjectIdString): Promise<number | undefined>;
  /** The user's activities newest first, only those older than `beforeSeq` when it is given. */
  page(
    userId: ObjectIdString,
    options: { readonly limit: number; readonly beforeSeq?: number | undefined },
  ): Promise<ActivityPage>;
}
