import type { Statement } from 'better-sqlite3';
import { newId, type ObjectIdString } from '../ids.ts';
import { sqliteSearch } from './employee-store.sqlite-queries.ts';
import { writeTransaction, type Db } from './sqlite.ts';
import {
  keyOf,
  nameKeyOf,
  type EmployeeChanges,
  type EmployeeRecord,
  type EmployeeStore,
  type UpdateOutcome,
} from './employee-store.ts';

interface Row {
  id: string;
  name: string;
  name_key: string;
  date_of_birth: string;
  created_at: string;
  updated_at: string;
  version: number;
}

const toRecord = (r: Row): EmployeeRecord => ({
  id: r.id as ObjectIdString,
  name: r.name,
  dateOfBirth: r.date_of_birth,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  version: r.version,
});

export interface SqliteEmployeeOptions {
  /**
   * Whether the reads of one synchronous stretch share one read transaction (default: yes, unless
   * `TROUPE_READ_TOGETHER=0`, a switch for the bench alone, which measures what it buys).
   */
  readonly readTogether?: boolean;
}

const readTogetherDefault = (): boolean => process.env['TROUPE_READ_TOGETHER'] !== '0';

/** SQLite adapter of {@link EmployeeStore}, in the shared database (migration 003). */
export function sqliteEmployeeStore(db: Db, options: SqliteEmployeeOptions = {}): EmployeeStore {
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

  // The reads of one synchronous stretch (the messages the EmployeeActor handles in one go) share
  // one read transaction: one snapshot, one lock taken and dropped, however many records they read.
  // The first read opens it and a microtask ends it, once the stretch is over. Every write ends it
  // first, so a write never runs inside it (it would have to upgrade that snapshot to write, which
  // fails when another process committed since) and is committed on its own before it is answered.
  const begin = db.prepare('begin');
  const commit = db.prepare('commit');
  let reading = false;
  const endReading = (): void => {
    if (!reading) return;
    reading = false;
    if (!db.inTransaction) return;
    try {
      commit.run();
    } catch {
      // A transaction that only read holds nothing to keep: given up, so the connection is free again.
      if (db.inTransaction) db.exec('rollback');
    }
  };
  const readTogether = options.readTogether ?? readTogetherDefault();
  /** Opens the stretch's read transaction, unless one (this one, or a write's) is open already. */
  const joinReading = (): void => {
    if (!readTogether || db.inTransaction) return;
    begin.run();
    reading = true;
    queueMicrotask(endReading);
  };
  const findByIdNow = (id: ObjectIdString): EmployeeRecord | undefined => {
    joinReading();
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
      endReading();
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
    update: async (id, changes, expected, at) => {
      endReading();
      return update(id, changes, expected, at);
    },
    delete: async (id) => {
      endReading();
      return deleteRow.run(id).changes === 1;
    },
  };
}
