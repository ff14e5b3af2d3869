import type { Statement } from 'better-sqlite3';
import { newId, type ObjectIdString } from '../ids.ts';
import { sqliteSearch } from './employee-store.sqlite-queries.ts';
import { versionFields, writeTransaction, type Db, type VersionedRow } from './sqlite.ts';
import {
  keyOf,
  nameKeyOf,
  type EmployeeChanges,
  type EmployeeRecord,
  type EmployeeStore,
  type UpdateOutcome,
} from './employee-store.ts';

interface Row extends VersionedRow {
  id: string;
  name: string;
  name_key: string;
  date_of_birth: string;
}

const toRecord = (r: Row): EmployeeRecord => ({
  id: r.id as ObjectIdString,
  name: r.name,
  dateOfBirth: r.date_of_birth,
  ...versionFields(r),
});

/** SQLite adapter of {@link EmployeeStore}, in the shared database (migration 003). */
export function sqliteEmployeeStore(db: Db): EmployeeStore {
  const insertRow = db.prepare<[string, string, string, string, string, string], Row>(
    `insert into employees (id, name, name_key, date_of_birth, created_at, updated_at, version)
     values (?, ?, ?, ?, ?, ?, 1) returning *`,
  );
  const byId = db.prepare<[string], Row>('select * from employees where id = ?');
  const updateRow = db.prepare<[string | null, string | null, string | null, string, string], Row>(
    `update employees set name = coalesce(?, name), name_key = coalesce(?, name_key), date_of_birth = coalesce(?, date_of_birth),
     updated_at = ?, version = version + 1 where id = ? returning *`,
  );
  const deleteRow = db.prepare<[string]>('delete from employees where id = ?');
  const searches = new Map<string, Statement<(string | number)[], Row>>();
  const prepared = (sql: string): Statement<(string | number)[], Row> => {
    const cached = searches.get(sql) ?? db.prepare<(string | number)[], Row>(sql);
    searches.set(sql, cached);
    return cached;
  };

  const findByIdNow = (id: ObjectIdString): EmployeeRecord | undefined => {
    const row = byId.get(id);
    return row && toRecord(row);
  };

  const update = writeTransaction(
    db,
    (id: string, changes: EmployeeChanges, expected: number | undefined, at: string): UpdateOutcome => {
      const current = byId.get(id);
      if (!current) return { status: 'not_found' };
      if (expected !== undefined && current.version !== expected)
        return { status: 'version_conflict', version: current.version };
      const name = changes.name ?? null;
      const row = updateRow.get(name, name === null ? null : nameKeyOf(name), changes.dateOfBirth ?? null, at, id);
      if (!row) throw new Error('updated employee vanished');
      return { status: 'updated', record: toRecord(row) };
    },
  );

  return {
    async insert(input, at) {
      const row = insertRow.get(newId(), input.name, nameKeyOf(input.name), input.dateOfBirth, at, at);
      if (!row) throw new Error('employee insert returned no row');
      return toRecord(row);
    },
    findById: async (id) => findByIdNow(id),
    findByIdNow,
    async search(criteria) {
      const { sql, params } = sqliteSearch(criteria);
      const rows = prepared(sql)
        .all(...params)
        .map(toRecord);
      const items = rows.slice(0, criteria.limit);
      const last = items.at(-1);
      return { items, next: rows.length > criteria.limit && last ? keyOf(last) : null };
    },
    update: async (id, changes, expected, at) => update(id, changes, expected, at),
    delete: async (id) => deleteRow.run(id).changes === 1,
  };
}
