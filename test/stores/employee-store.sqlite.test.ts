import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newId, type ObjectIdString } from '../../src/ids.ts';
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

const t = suite('employee store on SQLite: the reads of a stretch together');

t(
  'the reads of one synchronous stretch share a read transaction; a write ends it first and is committed at once',
  async () => {
    const dir = tempDir();
    const db = openDatabase(dir, { synchronous: 'NORMAL' });
    const other = openDatabase(dir, { synchronous: 'NORMAL' });
    try {
      const store = sqliteEmployeeStore(db, { readTogether: true });
      const elsewhere = sqliteEmployeeStore(other, { readTogether: true });
      const findNow = store.findByIdNow;
      const findElsewhere = elsewhere.findByIdNow;
      if (!findNow || !findElsewhere) throw new Error('the SQLite adapter reads synchronously');
      const nameOf = (id: ObjectIdString): string | undefined => findNow(id)?.name;
      const first = insertNow(other, 'First');
      assert.is(nameOf(first), 'First');
      assert.ok(db.inTransaction, 'the first read opened a read transaction');
      // Another process commits meanwhile: this stretch goes on reading its one snapshot.
      const second = insertNow(other, 'Second');
      assert.is(nameOf(second), undefined);
      await Promise.resolve();
      assert.not.ok(db.inTransaction, 'ended once the stretch was over');
      // The next stretch sees what was committed before it.
      assert.is(nameOf(second), 'Second');
      // A write ends the read transaction before it runs, and is visible elsewhere as soon as it returns.
      void store.delete(first);
      assert.not.ok(db.inTransaction, 'the delete ended the read transaction');
      assert.is(findElsewhere(first), undefined, 'the delete was committed, not held in a transaction');
      assert.is(nameOf(first), undefined);
      await Promise.resolve();
      assert.not.ok(db.inTransaction);
    } finally {
      other.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

t('switched off: each read is its own', async () => {
  const db = openDatabase(':memory:', { synchronous: 'NORMAL' });
  try {
    const store = sqliteEmployeeStore(db, { readTogether: false });
    assert.is(store.findByIdNow?.(newId()), undefined);
    assert.not.ok(db.inTransaction);
  } finally {
    db.close();
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
