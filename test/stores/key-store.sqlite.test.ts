/** The KeyStore contract against SQLite: a fresh data directory per test, a second connection as another process. */
import { rmSync } from 'node:fs';
import { sqliteKeyStore } from '../../src/stores/key-store.sqlite.ts';
import { openDatabase, type Db } from '../../src/stores/sqlite.ts';
import { tempDir } from '../helpers/server.ts';
import { keyStoreContract } from './key-store.contract.ts';

keyStoreContract('SQLite', {
  changeBoundMs: 0,
  async open() {
    const dir = tempDir('troupe-key-store-');
    const dbs: Db[] = [openDatabase(dir, { synchronous: 'NORMAL' })];
    return {
      store: sqliteKeyStore(dbs[0] as Db, 'access'),
      lineage: (use) => sqliteKeyStore(dbs[0] as Db, use),
      async another(use = 'access') {
        const db = openDatabase(dir, { synchronous: 'NORMAL' });
        dbs.push(db);
        return sqliteKeyStore(db, use);
      },
      async dispose() {
        for (const db of dbs) db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});
