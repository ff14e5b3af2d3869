import type { KeyAlg, KeyStore, KeyUse } from './key-store.ts';
import { changeWatch, writeTransaction, type Db } from './sqlite.ts';

interface Row {
  kid: string;
  alg: KeyAlg;
  use: KeyUse;
  secret: string;
  createdAt: number;
  activatesAt: number;
  removedAt: number | null;
  createdBy: string;
  removedBy: string | null;
}

/**
 * SQLite adapter of {@link KeyStore}: the rows of `signing_keys` of one `use`, replaced in one
 * `BEGIN IMMEDIATE` transaction per change. `changed` reads `PRAGMA data_version`, which changes
 * for this connection when another connection (another process) commits: a counter read, cheap
 * enough for every request; each store watches on its own. The database file is the owner's alone
 * (`sqlite.ts`), and so are the private keys in it.
 */
export function sqliteKeyStore(db: Db, use: KeyUse = 'access'): KeyStore {
  const all = db.prepare<[KeyUse], Row>(
    `select kid, alg, use, secret, created_at as createdAt, activates_at as activatesAt, removed_at as removedAt,
            created_by as createdBy, removed_by as removedBy
       from signing_keys where use = ?`,
  );
  const clear = db.prepare<[KeyUse]>('delete from signing_keys where use = ?');
  const insert = db.prepare<[string, string, KeyUse, string, number, number, number | null, string, string | null]>(
    `insert into signing_keys (kid, alg, use, secret, created_at, activates_at, removed_at, created_by, removed_by)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  return {
    read: async () => all.all(use),
    async update(change) {
      const apply = writeTransaction(db, () => {
        const current = all.all(use);
        const next = change(current);
        if (next.records === current) return next.result;
        clear.run(use);
        for (const r of next.records)
          insert.run(r.kid, r.alg, use, r.secret, r.createdAt, r.activatesAt, r.removedAt, r.createdBy, r.removedBy);
        return next.result;
      });
      return apply();
    },
    changed: changeWatch(db),
  };
}
