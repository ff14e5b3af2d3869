/**
 * The filters, updates and mappings that `employee-store.mongo.ts` sends to collection
 * `employees`, as pure functions of their inputs: tested on every run, where no MongoDB server is
 * at hand too. Records are ordered by the lowercased name (`nameKey`, computed by `nameKeyOf`,
 * never by the database) then by id, and paged by keyset on that pair, as in the SQLite adapter.
 */
import { ObjectId, type Filter, type UpdateFilter } from 'mongodb';
import {
  nameKeyOf,
  type EmployeeChanges,
  type EmployeeRecord,
  type EmployeeSearch,
  type SearchKey,
} from './employee-store.ts';
import type { ObjectIdString } from '../ids.ts';
import { escapeRegex } from './mongo.ts';

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

/** `s` as a regular expression that matches it literally. */

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
