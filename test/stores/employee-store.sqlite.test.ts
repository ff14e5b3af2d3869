import { sqliteEmployeeStore } from '../../src/stores/employee-store.sqlite.ts';
import { openDatabase } from '../../src/stores/sqlite.ts';
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
