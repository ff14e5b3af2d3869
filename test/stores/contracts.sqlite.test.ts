/** Every store contract against SQLite: a fresh data directory per test, a second connection as another process. */
import { rmSync } from 'node:fs';
import type { Stores } from '../../src/stores/stores.ts';
import { openSqliteStores } from '../../src/stores/stores.sqlite.ts';
import { tempDir } from '../helpers/server.ts';
import { storeContracts } from './contracts.ts';

storeContracts('SQLite', {
  async open() {
    const dir = tempDir('troupe-contract-');
    const open = (): Stores => openSqliteStores(dir, { synchronous: 'NORMAL' });
    const all = [open()];
    return {
      stores: all[0] as Stores,
      async another() {
        const more = open();
        all.push(more);
        return more;
      },
      async dispose() {
        for (const s of all) await s.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});
