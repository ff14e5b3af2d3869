import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newId, type ObjectIdString } from '../../src/ids.ts';
import type { EmployeeRecord } from '../../src/stores/employee-store.ts';
import { tempDir } from '../helpers/server.ts';
import { sqliteEmployeeStore } from '../../src/stores/employee-store.sqlite.ts';
import { openDatabase, type Db } from '../../src/stores/sqlite.ts';
import { employeeStoreContract } from './employee-store.contract.ts';

employeeStoreContract('SQLite', {
  async open() {
    const db = openDatabase(':memory:', { synchronous: 'NORMAL' });
    return {
      store: sqliteEmployeeStore(db),
      async dispose() {
        db.close();
      },
    };
  },
});

const t = suite('employee store on SQLite: readTogether');

t('the reads of one run share a read transaction; a write ends it first and is committed at once', () => {
  const dir = tempDir();
  const db = openDatabase(dir, { synchronous: 'NORMAL' });
  const other = openDatabase(dir, { synchronous: 'NORMAL' });
  try {
    const store = sqliteEmployeeStore(db);
    const elsewhere = sqliteEmployeeStore(other);
    const readTogether = store.readTogether;
    if (!readTogether) throw new Error('the SQLite adapter reads together');
    const nameOf = (id: ObjectIdString): string | undefined => (store.findById(id) as EmployeeRecord | undefined)?.name;
    const first = insertNow(other, 'First');
    let second: ObjectIdString | undefined;
    let seen: unknown[] = [];
    readTogether(() => {
      assert.ok(db.inTransaction, 'one read transaction around the run');
      seen.push(nameOf(first));
      // Another process commits meanwhile: this run goes on reading its one snapshot.
      second = insertNow(other, 'Second');
      seen.push(nameOf(second));
      readTogether(() => seen.push(db.inTransaction));
    });
    assert.not.ok(db.inTransaction, 'ended with the run');
    assert.equal(seen, ['First', undefined, true]);
    // The next run sees what was committed before it.
    seen = [];
    readTogether(() => seen.push(second && nameOf(second)));
    assert.equal(seen, ['Second']);
    // A write ends the read transaction before it runs, and is visible elsewhere as soon as it returns.
    readTogether(() => {
      seen = [nameOf(first)];
      void store.delete(first);
      assert.not.ok(db.inTransaction, 'the delete ended the read transaction');
      seen.push((elsewhere.findById(first) as EmployeeRecord | undefined)?.name, nameOf(first));
    });
    assert.equal(seen, ['First', undefined, undefined], 'the delete was committed, not held in a transaction');
  } finally {
    other.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

t.run();

/** Inserts a record through `db` at once, as another process would: its id. */
function insertNow(db: Db, name: string): ObjectIdString {
  const id = newId();
  const at = new Date(0).toISOString();
  db.prepare(
    'insert into employees (id, name, name_key, date_of_birth, created_at, updated_at, version) values (?, ?, ?, ?, ?, ?, 1)',
  ).run(id, name, name.toLowerCase(), '1990-04-12', at, at);
  return id;
}
