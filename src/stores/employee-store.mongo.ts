import {
  MongoClient, MongoNetworkError, MongoNotConnectedError, MongoServerSelectionError, MongoTopologyClosedError, ObjectId,
  type Db as MongoDb,
} from 'mongodb';
import { ConfigError } from '../config.ts';
import { MONGO_SORT, keyOf, mongoFilter, mongoUpdate, mongoUpdateFilter, nameKeyOf, recordOfDoc, type EmployeeDoc } from './employee-query.ts';
import type { EmployeeStore } from './employee-store.ts';
import { StoreUnavailableError } from '../unavailable.ts';

/** How long an operation waits for a reachable server before it fails (the driver's default is 30 s). */
const SERVER_SELECTION_TIMEOUT_MS = 3000;

const isUnreachable = (error: unknown): boolean =>
  error instanceof MongoServerSelectionError || error instanceof MongoNetworkError
  || error instanceof MongoTopologyClosedError || error instanceof MongoNotConnectedError;

/** Runs `work`, turning "the server cannot be reached" into {@link StoreUnavailableError}. */
async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUnreachable(error)) throw new StoreUnavailableError('MongoDB cannot be reached', { cause: error });
    throw error;
  }
}

/** MongoDB adapter of {@link EmployeeStore}: collection `employees` of `db`; the caller owns the client. */
export function mongoEmployeeStore(db: MongoDb): EmployeeStore {
  const employees = db.collection<EmployeeDoc>('employees');
  // Created on first use and retried after a failure, so a server that is down at start-up is no obstacle.
  let indexes: Promise<unknown> | undefined;
  const collection = async () => {
    indexes ??= employees.createIndexes([
      { key: MONGO_SORT, name: 'employees_name' },
      { key: { dateOfBirth: 1 }, name: 'employees_birth' },
    ]).catch((error: unknown) => {
      indexes = undefined;
      throw error;
    });
    await indexes;
    return employees;
  };

  return {
    insert: (input, at) => guarded(async () => {
      const doc: EmployeeDoc = {
        _id: new ObjectId(), name: input.name, nameKey: nameKeyOf(input.name), dateOfBirth: input.dateOfBirth,
        createdAt: new Date(at), updatedAt: new Date(at), version: 1,
      };
      await (await collection()).insertOne(doc);
      return recordOfDoc(doc);
    }),
    findById: (id) => guarded(async () => {
      const doc = await (await collection()).findOne({ _id: new ObjectId(id) });
      return doc ? recordOfDoc(doc) : undefined;
    }),
    search: (criteria) => guarded(async () => {
      const docs = await (await collection()).find(mongoFilter(criteria)).sort(MONGO_SORT).limit(criteria.limit + 1).toArray();
      const items = docs.slice(0, criteria.limit).map(recordOfDoc);
      const last = items.at(-1);
      return { items, next: docs.length > criteria.limit && last ? keyOf(last) : null };
    }),
    update: (id, changes, expected, at) => guarded(async () => {
      const c = await collection();
      const doc = await c.findOneAndUpdate(mongoUpdateFilter(id, expected), mongoUpdate(changes, at), { returnDocument: 'after' });
      if (doc) return { status: 'updated', record: recordOfDoc(doc) };
      const current = await c.findOne({ _id: new ObjectId(id) }, { projection: { version: 1 } });
      return current ? { status: 'version_conflict', version: current.version } : { status: 'not_found' };
    }),
    delete: (id) => guarded(async () => (await (await collection()).deleteOne({ _id: new ObjectId(id) })).deletedCount === 1),
    ping: () => guarded(async () => {
      await db.command({ ping: 1 });
    }),
    async close() {},
  };
}

/**
 * The process's one MongoClient for `uri` (its path names the database), wrapped as an employee
 * store whose `close()` closes the client. No I/O happens until the first operation.
 */
export function openMongoEmployeeStore(uri: string): EmployeeStore {
  const timeout = /[?&]serverSelectionTimeoutMS=/i.test(uri) ? {} : { serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS };
  let client: MongoClient;
  try {
    client = new MongoClient(uri, timeout);
  } catch {
    // The constructor does no I/O: it fails only on the URI, whose text may hold a password.
    throw new ConfigError('Invalid configuration: mongodb.uri is not a valid MongoDB connection string');
  }
  return { ...mongoEmployeeStore(client.db()), close: () => client.close() };
}
