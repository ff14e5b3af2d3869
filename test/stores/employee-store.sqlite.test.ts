import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newId, type ObjectIdString } from '../../src/ids.ts';
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

const t = suite('employee store on SQLite: a read at once');

t('findByIdNow answers without a promise, in no transaction of its own', () => {
  const db = openDatabase(':memory:', { synchronous: 'NORMAL' });
  try {
    const store = sqliteEmployeeStore(db);
    const id = insertNow(db, 'First');
    const found = store.findByIdNow?.(id);
    assert.not.instance(found, Promise);
    assert.is(found?.name, 'First');
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
