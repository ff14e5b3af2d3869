/** Port: employee records, kept in MongoDB or in the embedded SQLite database. */
import type { ObjectIdString } from '../ids.ts';

/** An employee record as every store returns it; timestamps are ISO-8601 in UTC. */
export interface EmployeeRecord {
  readonly id: ObjectIdString;
  readonly name: string;
  /** A calendar date, `YYYY-MM-DD`. */
  readonly dateOfBirth: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** 1 on creation, + 1 on every update. */
  readonly version: number;
}

export interface NewEmployee {
  readonly name: string;
  readonly dateOfBirth: string;
}

/** The fields an update replaces; absent ones are kept. */
export type EmployeeChanges = Partial<NewEmployee>;

/** A position in the search order: the lowercased name, then the id. */
export interface SearchKey {
  readonly nameKey: string;
  readonly id: ObjectIdString;
}

/** The sort and search key of a name: the same in both stores, whatever their collations. */
export const nameKeyOf = (name: string): string => name.normalize('NFC').toLowerCase();

/** The position of a record in the search order. */
export const keyOf = (record: { readonly id: ObjectIdString; readonly name: string }): SearchKey => ({
  nameKey: nameKeyOf(record.name),
  id: record.id,
});

/** Every given criterion must hold. */
export interface EmployeeSearch {
  /** Case-insensitive substring of the name. */
  readonly name?: string | undefined;
  readonly id?: ObjectIdString | undefined;
  /** Inclusive bounds, `YYYY-MM-DD`. */
  readonly bornFrom?: string | undefined;
  readonly bornTo?: string | undefined;
  readonly limit: number;
  /** Only records strictly after this position. */
  readonly after?: SearchKey | undefined;
}

export interface EmployeePage {
  /** Ordered by lowercased name, then id. */
  readonly items: readonly EmployeeRecord[];
  /** The position of the last item when more matches follow, else null. */
  readonly next: SearchKey | null;
}

export type UpdateOutcome =
  | { readonly status: 'updated'; readonly record: EmployeeRecord }
  | { readonly status: 'not_found' }
  | { readonly status: 'version_conflict'; readonly version: number };

/**
 * Employee records. Ids have the ObjectId form in every adapter. Methods reject with
 * StoreUnavailableError (src/stores/store-unavailable.ts) when the database cannot be reached, with anything else on a fault.
 */
export interface EmployeeStore {
  /** Stores a new record (version 1) with a fresh id; `at` is an ISO-8601 instant. */
  insert(input: NewEmployee, at: string): Promise<EmployeeRecord>;
  /** The record, or undefined. */
  findById(id: ObjectIdString): Promise<EmployeeRecord | undefined>;
  /**
   * The same read answered at once, for an adapter whose reads are synchronous (SQLite): a
   * primary-key read then costs no promise.
   */
  readonly findByIdNow?: (id: ObjectIdString) => EmployeeRecord | undefined;
  search(criteria: EmployeeSearch): Promise<EmployeePage>;
  /** Applies `changes` and increments the version, atomically; only at `expectedVersion` if given. */
  update(
    id: ObjectIdString,
    changes: EmployeeChanges,
    expectedVersion: number | undefined,
    at: string,
  ): Promise<UpdateOutcome>;
  /** False when there was no such record. */
  delete(id: ObjectIdString): Promise<boolean>;
}
