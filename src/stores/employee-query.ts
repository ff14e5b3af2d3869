/**
 * The search and update logic of the employee adapters as pure functions, so that it is tested on
 * every run even where no MongoDB server is available. Both adapters order by the lowercased name
 * (`nameKey`, computed here, never by the database) then by id, and page by keyset on that pair.
 */
import { ObjectId, type Filter, type UpdateFilter } from 'mongodb';
import type { EmployeeChanges, EmployeeRecord, EmployeeSearch, SearchKey } from './employee-store.ts';
import type { ObjectIdString } from '../ids.ts';

/** The document in the `employees` collection. */
export interface EmployeeDoc {
  _id: ObjectId;
  name: string;
  /** `name` lowercased: the sort key and what the name search matches. */
  nameKey: string;
  dateOfBirth: string;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

/** The sort and search key of a name: the same in both stores, whatever their collations. */
export const nameKeyOf = (name: string): string => name.normalize('NFC').toLowerCase();

/** `s` as a regular expression that matches it literally. */
export const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A LIKE pattern matching `needle` anywhere, literally; use with `escape '\'`. */
export const likeContains = (needle: string): string => `%${needle.replace(/[\\%_]/g, '\\$&')}%`;

export const MONGO_SORT = { nameKey: 1, _id: 1 } as const;

/** Everything after `key` in the search order. */
export function mongoAfter(key: SearchKey): Filter<EmployeeDoc> {
  return { $or: [{ nameKey: { $gt: key.nameKey } }, { nameKey: key.nameKey, _id: { $gt: new ObjectId(key.id) } }] };
}

/** The MongoDB filter of a search (its `limit` is applied by the caller). */
export function mongoFilter(criteria: EmployeeSearch): Filter<EmployeeDoc> {
  const filter: Filter<EmployeeDoc> = {};
  if (criteria.name !== undefined) filter.nameKey = { $regex: escapeRegex(nameKeyOf(criteria.name)) };
  if (criteria.id !== undefined) filter._id = new ObjectId(criteria.id);
  if (criteria.bornFrom !== undefined || criteria.bornTo !== undefined) {
    filter.dateOfBirth = {
      ...(criteria.bornFrom === undefined ? {} : { $gte: criteria.bornFrom }),
      ...(criteria.bornTo === undefined ? {} : { $lte: criteria.bornTo }),
    };
  }
  return criteria.after === undefined ? filter : { ...filter, ...mongoAfter(criteria.after) };
}

/** The filter of an update: the record, and its version when the caller expects one. */
export function mongoUpdateFilter(id: ObjectIdString, expectedVersion: number | undefined): Filter<EmployeeDoc> {
  return expectedVersion === undefined
    ? { _id: new ObjectId(id) }
    : { _id: new ObjectId(id), version: expectedVersion };
}

/** Sets the changed fields (and the name key with the name), stamps the time, bumps the version. */
export function mongoUpdate(changes: EmployeeChanges, at: string): UpdateFilter<EmployeeDoc> {
  return {
    $set: {
      ...(changes.name === undefined ? {} : { name: changes.name, nameKey: nameKeyOf(changes.name) }),
      ...(changes.dateOfBirth === undefined ? {} : { dateOfBirth: changes.dateOfBirth }),
      updatedAt: new Date(at),
    },
    $inc: { version: 1 },
  };
}

export function recordOfDoc(doc: EmployeeDoc): EmployeeRecord {
  return {
    id: doc._id.toHexString() as ObjectIdString,
    name: doc.name,
    dateOfBirth: doc.dateOfBirth,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
    version: doc.version,
  };
}

/** The position of a record in the search order. */
export const keyOf = (record: { readonly id: ObjectIdString; readonly name: string }): SearchKey => ({
  nameKey: nameKeyOf(record.name),
  id: record.id,
});

export interface SqlQuery {
  readonly sql: string;
  readonly params: readonly (string | number)[];
}

/** The SQLite query of a search, fetching `limit + 1` rows so the caller knows whether more follow. */
export function sqliteSearch(criteria: EmployeeSearch): SqlQuery {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const add = (clause: string, ...values: (string | number)[]): void => {
    where.push(clause);
    params.push(...values);
  };
  if (criteria.name !== undefined) add("name_key like ? escape '\\'", likeContains(nameKeyOf(criteria.name)));
  if (criteria.id !== undefined) add('id = ?', criteria.id);
  if (criteria.bornFrom !== undefined) add('date_of_birth >= ?', criteria.bornFrom);
  if (criteria.bornTo !== undefined) add('date_of_birth <= ?', criteria.bornTo);
  if (criteria.after !== undefined) add('(name_key, id) > (?, ?)', criteria.after.nameKey, criteria.after.id);
  // The inner query filters and pages on the covering name index; only the page's rows are read
  // (CROSS JOIN keeps that order even before the planner has statistics).
  const inner = `select id from employees${where.length > 0 ? ` where ${where.join(' and ')}` : ''} order by name_key, id limit ?`;
  const sql = `select e.* from (${inner}) page cross join employees e on e.id = page.id order by e.name_key, e.id`;
  return { sql, params: [...params, criteria.limit + 1] };
}
