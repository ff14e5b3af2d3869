import { ObjectId, type Db as MongoDb } from 'mongodb';
import {
  MONGO_SORT,
  mongoFilter,
  mongoUpdate,
  mongoUpdateFilter,
  recordOfDoc,
  type EmployeeDoc,
} from './employee-store.mongo-queries.ts';
import { keyOf, nameKeyOf, type EmployeeStore } from './employee-store.ts';
import { guarded, type Runner } from './mongo.ts';

/** MongoDB adapter of {@link EmployeeStore}: collection `employees` of `db`; the caller owns the client. */
export function mongoEmployeeStore(db: MongoDb, run: Runner = guarded): EmployeeStore {
  const employees = db.collection<EmployeeDoc>('employees');
  // Created on first use and retried after a failure, so a server that is down at start-up is no obstacle.
  let indexes: Promise<unknown> | undefined;
  const collection = async () => {
    indexes ??= employees
      .createIndexes([
        { key: MONGO_SORT, name: 'employees_name' },
        { key: { dateOfBirth: 1 }, name: 'employees_birth' },
      ])
      .catch((error: unknown) => {
        indexes = undefined;
        throw error;
      });
    await indexes;
    return employees;
  };

  return {
    insert: (input, at) =>
      run(async () => {
        const doc: EmployeeDoc = {
          _id: new ObjectId(),
          name: input.name,
          nameKey: nameKeyOf(input.name),
          dateOfBirth: input.dateOfBirth,
          createdAt: new Date(at),
          updatedAt: new Date(at),
          version: 1,
        };
        await (await collection()).insertOne(doc);
        return recordOfDoc(doc);
      }),
    findById: (id) =>
      run(async () => {
        const doc = await (await collection()).findOne({ _id: new ObjectId(id) });
        return doc ? recordOfDoc(doc) : undefined;
      }),
    search: (criteria) =>
      run(async () => {
        const docs = await (
          await collection()
        )
          .find(mongoFilter(criteria))
          .sort(MONGO_SORT)
          .limit(criteria.limit + 1)
          .toArray();
        const items = docs.slice(0, criteria.limit).map(recordOfDoc);
        const last = items.at(-1);
        return { items, next: docs.length > criteria.limit && last ? keyOf(last) : null };
      }),
    update: (id, changes, expected, at) =>
      run(async () => {
        const c = await collection();
        const doc = await c.findOneAndUpdate(mongoUpdateFilter(id, expected), mongoUpdate(changes, at), {
          returnDocument: 'after',
        });
        if (doc) return { status: 'updated', record: recordOfDoc(doc) };
        const current = await c.findOne({ _id: new ObjectId(id) }, { projection: { version: 1 } });
        return current ? { status: 'version_conflict', version: current.version } : { status: 'not_found' };
      }),
    delete: (id) =>
      run(async () => (await (await collection()).deleteOne({ _id: new ObjectId(id) })).deletedCount === 1),
  };
}
